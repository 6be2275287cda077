import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import type { Address, LocalAccount } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { z } from 'zod'
import { type ApiClient, createApiClient } from '../api/client.js'
import { getContracts } from '../api/resources/get-contracts.js'
import { type ChainClients, createChainClients } from '../chain/chain-clients.js'
import type { DeploymentContracts } from '../chain/deployment.js'
import { loadAccount } from '../chain/load-account.js'
import { executorSettingsOf } from '../config/executor-settings.js'
import { type ConfigDocument, ConfigError } from '../config/load-config.js'
import type { DeltaflowConfig } from '../config/schema.js'
import { BaseError } from '../errors/base.js'
import { createExecutorContext, type ExecutorContext } from '../exec/executor/executor-context.js'
import { createKillSwitch, type KillSwitch } from '../exec/risk/kill-switch.js'
import type { QuoteRequest } from '../feed/quote.js'
import { decimalsFromTokenList, type TokenDecimals } from '../feed/token-decimals.js'
import { type Journal, openJournal } from '../journal/journal.js'
import type { Logger } from '../log/logger.js'
import { type Bot, createBot } from '../runtime/bot.js'
import { createBotMetrics, type PrometheusBotMetrics } from '../runtime/bot-metrics.js'
import { type OpsServer, startOpsServer } from '../runtime/ops-server.js'
import { developmentAccounts } from '../sandbox/chains/accounts.js'
import { type RunningSandbox, startSandbox } from '../sandbox/start-sandbox.js'
import type { StrategyDefinition } from '../strategy/define-strategy.js'
import { loadStrategy } from '../strategy/load-strategy.js'
import { createSafeStrategy, type SafeStrategy } from '../strategy/safe-strategy.js'
import { type Clock, createScaledClock, systemClock } from '../time/clock.js'
import { clockSpeed } from '../time/clock-timer.js'

/** A bot that cannot run as configured (mode, venue, wallet): operational, the user fixes the config or the flags. */
export class BotSetupError extends BaseError {
  override name = 'BotSetupError' as const
}

export type OpenBotSessionParameters = {
  document: ConfigDocument
  /** The command line's `--live`: required, with `mode: live`, before real orders are placed. */
  live: boolean
  logger: Logger
  env?: Readonly<Record<string, string | undefined>>
}

/** Everything `deltaflow run` (and `record`) works with, opened from one configuration. */
export type BotSession = {
  config: DeltaflowConfig
  bot: Bot
  journal: Journal
  account: LocalAccount
  accountSource: string
  clock: Clock
  api: ApiClient
  chains: ReadonlyMap<number, ChainClients>
  decimalsOf: TokenDecimals
  strategies: readonly SafeStrategy[]
  metrics: PrometheusBotMetrics
  killSwitch: KillSwitch
  /** The embedded sandbox in paper mode with `venue.url: sandbox`. */
  sandbox: RunningSandbox | undefined
  ops: OpsServer | undefined
  /** Stops the ops endpoint, closes the journal and the embedded sandbox (the bot is stopped by the caller). */
  close: () => Promise<void>
}

/**
 * Opens a bot from its configuration, checking first what could lose money: `live` needs both `mode: live` and the
 * `--live` flag and a real venue; `paper` trades only on a sandbox (the embedded one, or one on loopback); `dry-run`
 * signs nothing. Strategies are loaded and their configs validated before anything starts, each problem named with its
 * YAML path and line.
 */
export async function openBotSession({ document, live, logger, env = process.env }: OpenBotSessionParameters): Promise<BotSession> {
  const { config } = document
  checkMode(config, live)
  const definitions = await loadStrategyDefinitions(document)
  const stops: (() => Promise<void> | void)[] = []
  const close = async () => {
    for (const stop of stops.splice(0).reverse()) await stop()
  }
  try {
    const venue = await openVenue(config, logger)
    stops.push(venue.close)
    const { sandbox, api, clock } = venue
    const embedded = sandbox !== undefined
    const { account, accountSource } = await resolveAccount(config, sandbox, env, logger)
    const chains = createChainClients({ chains: venue.chains, account, pollingIntervalMs: 100 })
    const deployment = await getContracts(api)
    const contracts: DeploymentContracts = Object.fromEntries(deployment.chains)
    const journalFile =
      config.db ?? (embedded ? join(mkdtempSync(join(tmpdir(), 'deltaflow-paper-')), 'journal.sqlite') : 'deltaflow.sqlite')
    const journal = openJournal({ file: journalFile, clock })
    stops.push(() => journal.close())
    const { killSwitch: killSwitchConfig, ...limits } = config.risk
    const killSwitch = createKillSwitch(killSwitchConfig ?? {})
    stops.push(() => killSwitch.dispose())
    const context: ExecutorContext = createExecutorContext({
      api,
      chains,
      contracts,
      account,
      journal,
      clock,
      logger,
      limits,
      killSwitch,
      settings: executorSettingsOf(config.executor),
    })
    const strategies = definitions.map(({ entry, definition }) =>
      createSafeStrategy({ ...definition, name: entry.name }, { config: entry.config, clock, journal, logger }),
    )
    const decimalsOf = await decimalsOfRequests(
      strategies.flatMap((strategy) => strategy.subscriptions),
      context,
    )
    const metrics = createBotMetrics({ journal, strategies: () => bot.stats().strategies })
    const bot = createBot({
      context,
      strategies,
      feedIntervalMs: config.feed.intervalMs,
      reconcileIntervalMs: config.reconcile.intervalMs,
      decimalsOf,
      logger,
      metrics,
      dryRun: config.mode === 'dry-run',
    })
    let ops: OpsServer | undefined
    if (config.ops.port !== undefined) {
      ops = await startOpsServer({
        host: config.ops.host,
        port: config.ops.port,
        metrics: () => metrics.render(),
        health: () => healthOf(bot, clock, config),
      })
      stops.push(() => ops?.close())
    }
    return {
      config,
      bot,
      journal,
      account,
      accountSource,
      clock,
      api,
      chains,
      decimalsOf,
      strategies,
      metrics,
      killSwitch,
      sandbox,
      ops,
      close,
    }
  } catch (error) {
    await close()
    throw error
  }
}

/** The venue of a configuration: its API client, its clock and its chains' RPC URLs (starting the embedded sandbox). */
export type OpenedVenue = {
  api: ApiClient
  clock: Clock
  chains: { chainId: number; rpcUrls: string[] }[]
  sandbox: RunningSandbox | undefined
  close: () => Promise<void>
}

/**
 * Opens the venue a configuration names: `sandbox` starts the embedded one (with the config's speed, chains, seed and
 * market), a paper venue on loopback lends the bot its clock, any other venue runs on the system clock.
 */
export async function openVenue(config: DeltaflowConfig, logger: Logger): Promise<OpenedVenue> {
  const sandbox =
    config.venue.url === 'sandbox'
      ? await startSandbox({
          chainIds: config.sandbox.chains,
          speed: config.sandbox.speed,
          seed: config.sandbox.seed,
          market: config.sandbox.market,
          logger,
        })
      : undefined
  try {
    const baseUrl = sandbox?.url ?? config.venue.url
    const api = createApiClient({
      baseUrl,
      apiKey: config.venue.apiKey,
      partner: config.venue.partner,
      timeoutMs: config.venue.timeoutMs,
      retry: { retries: config.venue.retries },
      rateLimit: { requestsPerSecond: config.venue.requestsPerSecond },
      logger,
    })
    const clock = sandbox ? sandbox.venue.clock : config.mode === 'paper' ? await sandboxClock(baseUrl) : systemClock
    const rpc = new Map(Object.entries(config.chains).map(([chainId, chain]) => [Number(chainId), chain.rpcUrls]))
    for (const chain of sandbox?.chains ?? []) if (!rpc.has(chain.chainId)) rpc.set(chain.chainId, [chain.rpcUrl])
    if (rpc.size === 0) {
      throw new BotSetupError('No chain RPC URL is configured', {
        hint: 'list the chains and their RPC URLs under `chains:` in the config',
        errorClass: 'operational',
      })
    }
    return {
      api,
      clock,
      chains: [...rpc].map(([chainId, rpcUrls]) => ({ chainId, rpcUrls })),
      sandbox,
      close: async () => sandbox?.stop(),
    }
  } catch (error) {
    await sandbox?.stop()
    throw error
  }
}

function checkMode(config: DeltaflowConfig, live: boolean): void {
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

function isLoopback(url: string): boolean {
  const host = new URL(url).hostname
  return host === '127.0.0.1' || host === 'localhost' || host === '[::1]'
}

const sandboxTimeSchema = z.object({ nowMs: z.number(), speed: z.number().positive() })

/** A sandbox on loopback runs its own (possibly compressed) time: the bot's clock follows it. */
async function sandboxClock(baseUrl: string): Promise<Clock> {
  const response = await fetch(new URL('/_sandbox/time', baseUrl))
  const parsed = sandboxTimeSchema.safeParse(response.ok ? await response.json() : undefined)
  if (!parsed.success) {
    throw new BotSetupError(`mode: paper expects a deltaflow sandbox at ${baseUrl}, and GET /_sandbox/time did not answer like one`, {
      hint: 'start one with `deltaflow sandbox`, or remove venue.url to use the embedded sandbox',
      errorClass: 'operational',
    })
  }
  return createScaledClock({ speed: parsed.data.speed, startMs: parsed.data.nowMs })
}

async function resolveAccount(
  config: DeltaflowConfig,
  sandbox: RunningSandbox | undefined,
  env: Readonly<Record<string, string | undefined>>,
  logger: Logger,
): Promise<{ account: LocalAccount; accountSource: string }> {
  const { keystore, privateKeyEnv } = config.wallet
  if (keystore !== undefined)
    return { account: await loadAccount({ keystorePath: keystore, env, logger }), accountSource: `keystore ${keystore}` }
  if (env[privateKeyEnv]) {
    return {
      account: await loadAccount({ env: { ...env, DELTAFLOW_PRIVATE_KEY: env[privateKeyEnv] }, logger }),
      accountSource: `environment ${privateKeyEnv}`,
    }
  }
  const development = developmentAccounts[config.sandbox.accountIndex]
  if (sandbox && development) {
    return {
      account: privateKeyToAccount(development.privateKey),
      accountSource: `sandbox development account ${config.sandbox.accountIndex}`,
    }
  }
  throw new BotSetupError('No signing key', {
    hint: `set ${privateKeyEnv} or wallet.keystore (password in DELTAFLOW_KEYSTORE_PASSWORD)`,
    errorClass: 'operational',
  })
}

type LoadedEntry = { entry: DeltaflowConfig['strategies'][number]; definition: StrategyDefinition }

/**
 * Loads every enabled strategy and checks its config against its schema, before anything starts; throws ConfigError
 * naming each problem's YAML path and line.
 */
export async function loadStrategyDefinitions({ config, file, locate, locateKey }: ConfigDocument): Promise<LoadedEntry[]> {
  const problems: string[] = []
  const loaded: LoadedEntry[] = []
  for (const [index, entry] of config.strategies.entries()) {
    if (!entry.enabled) continue
    const at = ['strategies', index]
    let definition: StrategyDefinition
    try {
      ;({ definition } = await loadStrategy(entry.use, { baseDirectory: dirname(file) }))
    } catch (error) {
      problems.push(`${locate([...at, 'use'])}: strategies.${index}.use: ${error instanceof Error ? error.message : String(error)}`)
      continue
    }
    const parsed = definition.configSchema.safeParse(entry.config)
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        const path = [...at, 'config', ...issue.path]
        if (issue.code === 'unrecognized_keys') {
          for (const key of issue.keys) problems.push(`${locateKey(path, key)}: unknown key "${key}" in ${path.map(String).join('.')}`)
        } else {
          problems.push(`${locate(path)}: ${path.map(String).join('.')}: ${issue.message}`)
        }
      }
      continue
    }
    loaded.push({ entry, definition })
  }
  if (problems.length > 0) throw new ConfigError(file, problems)
  return loaded
}

/** The decimals of every token of the quote requests, read once from the chains. */
export async function decimalsOfRequests(
  requests: readonly QuoteRequest[],
  context: Pick<ExecutorContext, 'decimalsOf'>,
): Promise<TokenDecimals> {
  const tokens = new Map<string, { chainId: number; address: Address }>()
  for (const request of requests) {
    tokens.set(`${request.chainId}:${request.srcToken}`, { chainId: request.chainId, address: request.srcToken })
    const destChainId = request.destChainId ?? request.chainId
    tokens.set(`${destChainId}:${request.destToken}`, { chainId: destChainId, address: request.destToken })
  }
  const list = await Promise.all(
    [...tokens.values()].map(async (token) => ({ ...token, decimals: await context.decimalsOf(token.chainId, token.address) })),
  )
  return decimalsFromTokenList(list)
}

/** Healthy while running, with a reconciliation in the last three intervals (counted in real time). */
function healthOf(bot: Bot, clock: Clock, config: DeltaflowConfig) {
  const stats = bot.stats()
  const speed = clockSpeed(clock)
  const now = clock.now()
  const sinceReconcileMs = stats.lastReconcileAt === null ? null : (now - stats.lastReconcileAt) / speed
  const sinceQuoteMs = stats.lastQuoteAt === null ? null : (now - stats.lastQuoteAt) / speed
  const reconcileFresh = sinceReconcileMs !== null && sinceReconcileMs <= 3 * config.reconcile.intervalMs + 10_000
  return {
    healthy: stats.running && (reconcileFresh || (stats.reconcilePasses === 0 && stats.reconcileErrors === 0)),
    running: stats.running,
    sinceReconcileMs,
    sinceQuoteMs,
    quotes: stats.quotes,
    quoteErrors: stats.quoteErrors,
    executionErrors: stats.executionErrors,
    pausedStrategies: Object.entries(stats.strategies)
      .filter(([, strategy]) => strategy.paused)
      .map(([name]) => name),
  }
}
