import { rmSync } from 'node:fs'
import type { LocalAccount } from 'viem'
import type { ApiClient, ApiTransportObserver } from '../api/client.js'
import { getContracts } from '../api/resources/get-contracts.js'
import { type ChainClients, createChainClients, type RpcCallObserver } from '../chain/chain-clients.js'
import type { DeploymentContracts } from '../chain/deployment.js'
import { executorSettingsOf } from '../config/executor-settings.js'
import type { DeltaflowConfig } from '../config/schema.js'
import { createExecutorContext, type ExecutorContext, type ExecutorSettings } from '../exec/executor/executor-context.js'
import { createKillSwitch, type KillSwitch } from '../exec/risk/kill-switch.js'
import { type Journal, type OpenJournalParameters, openJournal } from '../journal/journal.js'
import type { Logger } from '../log/logger.js'
import { type Clock, systemClock } from '../time/clock.js'
import { BotSetupError } from './bot-errors.js'
import { type ConnectionHealth, createConnectionHealth } from './connection-health.js'
import type { EmbeddedVenue, StartEmbeddedVenue } from './embedded-venue.js'
import { journalFileOf } from './journal-file.js'
import { isLoopback, type OpenedVenue, openVenue } from './open-venue.js'
import { resolveAccount } from './resolve-account.js'

/**
 * What every command, the bot and the maker trade with, opened once from a configuration: the venue and the clock it
 * dictates, the chains, the account, the journal, and the executor's context over them (the config's risk limits, kill
 * switch and executor settings).
 */
export type Session<Venue extends EmbeddedVenue = EmbeddedVenue> = {
  config: DeltaflowConfig
  venue: OpenedVenue<Venue>
  api: ApiClient
  clock: Clock
  chains: ReadonlyMap<number, ChainClients>
  contracts: DeploymentContracts
  account: LocalAccount
  /** Where the key came from, for the user (never the key itself). */
  accountSource: string
  journal: Journal
  killSwitch: KillSwitch
  /** The executor's context: the only one that signs and sends. */
  context: ExecutorContext
  /** Whether the venue and each chain answer, fed by every API attempt and RPC call (real time). */
  connections: ConnectionHealth
  /** Adds observers of every API attempt and retry and every RPC call (metrics); returns their removal. */
  watchTransport: (watcher: TransportWatcher) => () => void
  logger: Logger
  /** Closes the journal and the kill switch, and stops an embedded venue; safe to call twice. */
  close: () => Promise<void>
}

/** Observers of the session's transports: the venue's API client and the chains' RPC clients. */
export type TransportWatcher = { api?: ApiTransportObserver | undefined; rpc?: RpcCallObserver | undefined }

export type OpenSessionParameters<Venue extends EmbeddedVenue> = {
  config: DeltaflowConfig
  logger: Logger
  /** Where keys are read from (`wallet.privateKeyEnv`, the keystore password). Default: the process's environment. */
  env?: Readonly<Record<string, string | undefined>> | undefined
  /** Starts the embedded venue for `venue.url: sandbox` (the command line passes the sandbox). */
  startEmbedded?: StartEmbeddedVenue<Venue> | undefined
  /**
   * A bot or maker: `mode` is enforced (live needs `live` and a real venue, paper a sandbox). One-off commands pass
   * false: they trade on the venue they are given, on its clock.
   */
  enforceMode?: boolean | undefined
  /** The command line's `--live`: required, with `mode: live`, before real orders are placed. */
  live?: boolean | undefined
  /** Settings on top of the config's `executor` section (a command's flags). */
  executorSettings?: Partial<ExecutorSettings> | undefined
  /** The journal file, instead of the config's (`:memory:` for a command that records nothing). */
  journalFile?: string | undefined
  /** Where the journal's checkpoints run (OpenJournalParameters): a bot or maker leaves them to a thread. Default inline. */
  checkpoints?: OpenJournalParameters['checkpoints'] | undefined
}

/**
 * Opens a session from a configuration, checking first what could lose money when the mode is enforced. Everything
 * opened is closed again when a later step fails.
 */
export async function openSession<Venue extends EmbeddedVenue = EmbeddedVenue>({
  config,
  logger,
  env = process.env,
  startEmbedded,
  enforceMode = true,
  live = false,
  executorSettings,
  journalFile,
  checkpoints = 'inline',
}: OpenSessionParameters<Venue>): Promise<Session<Venue>> {
  if (enforceMode) checkMode(config, live)
  const stops: (() => Promise<void> | void)[] = []
  const close = async () => {
    for (const stop of stops.splice(0).reverse()) await stop()
  }
  try {
    const venue = await openVenue({ config, logger, startEmbedded, enforceMode })
    stops.push(venue.close)
    const { api, clock, embedded } = venue
    const { account, accountSource } = await resolveAccount({ config, embedded, env, logger })
    const rpcObservers = new Set<RpcCallObserver>()
    const chains = createChainClients({
      chains: venue.chains,
      account,
      pollingIntervalMs: 100,
      observer: (event) => {
        for (const observer of rpcObservers) observer(event)
      },
    })
    const watchTransport = ({ api: apiObserver, rpc }: TransportWatcher) => {
      const removeApi = apiObserver ? api.observe?.(apiObserver) : undefined
      const added: RpcCallObserver | undefined = rpc && ((event) => rpc(event))
      if (added) rpcObservers.add(added)
      return () => {
        removeApi?.()
        if (added) rpcObservers.delete(added)
      }
    }
    const connections = createConnectionHealth({
      clock: systemClock,
      chainIds: [...chains.keys()],
      unhealthyAfterMs: config.ops.unhealthyAfterMs,
    })
    stops.push(watchTransport({ api: connections.observeApi, rpc: connections.observeRpc }))
    const contracts: DeploymentContracts = Object.fromEntries((await getContracts(api)).chains)
    const { file, throwawayDirectory } =
      journalFile === undefined ? journalFileOf(config, { embedded: embedded !== undefined }) : { file: journalFile }
    // An embedded venue's orders die with it: its throwaway journal goes too, once closed.
    if (throwawayDirectory !== undefined) stops.push(() => rmSync(throwawayDirectory, { recursive: true, force: true }))
    const journal = openJournal({ file, clock, checkpoints })
    stops.push(() => journal.close())
    const { killSwitch: killSwitchConfig, ...limits } = config.risk
    const killSwitch = createKillSwitch(killSwitchConfig ?? {})
    stops.push(() => killSwitch.dispose())
    const context = createExecutorContext({
      api,
      chains,
      contracts,
      account,
      journal,
      clock,
      logger,
      limits,
      killSwitch,
      settings: { ...executorSettingsOf(config.executor), ...executorSettings },
    })
    return {
      config,
      venue,
      api,
      clock,
      chains,
      contracts,
      account,
      accountSource,
      journal,
      killSwitch,
      context,
      connections,
      watchTransport,
      logger,
      close,
    }
  } catch (error) {
    await close()
    throw error
  }
}

/** live needs both `mode: live` and `--live`, and a real venue; paper trades only on a sandbox. */
export function checkMode(config: DeltaflowConfig, live: boolean): void {
  if (config.mode === 'live' && !live) {
    throw new BotSetupError('The config says `mode: live`, but --live was not given', {
      hint: 'live mode places real orders with real funds: pass --live to confirm, or set mode: paper',
      errorClass: 'operational',
    })
  }
  if (live && config.mode !== 'live') {
    throw new BotSetupError(`--live was given, but the config says mode: ${config.mode}`, {
      hint: 'set `mode: live` in the config as well (both are required for real orders), or drop --live',
      errorClass: 'operational',
    })
  }
  if (config.mode === 'live' && config.venue.url === 'sandbox') {
    throw new BotSetupError('mode: live needs the service URL in venue.url, received "sandbox"', {
      hint: 'use mode: paper to trade on the sandbox',
      errorClass: 'operational',
    })
  }
  if (config.mode === 'paper' && config.venue.url !== 'sandbox' && !isLoopback(config.venue.url)) {
    throw new BotSetupError(`mode: paper trades only on a sandbox, but venue.url is ${config.venue.url}`, {
      hint: 'remove venue.url (the embedded sandbox), point it at a `deltaflow sandbox` on 127.0.0.1, or use dry-run / live',
      errorClass: 'operational',
    })
  }
}
