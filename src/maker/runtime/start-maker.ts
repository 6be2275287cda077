import { dirname } from 'node:path'
import type { ConfigDocument } from '../../config/load-config.js'
import type { FirmQuoteSummary } from '../../journal/firm-quotes.js'
import type { Logger } from '../../log/logger.js'
import type { EmbeddedVenue, StartEmbeddedVenue } from '../../runtime/embedded-venue.js'
import { openSession, type Session } from '../../runtime/open-session.js'
import { systemClock } from '../../time/clock.js'
import { type MakerServer, startMakerServer } from '../server/maker-server.js'
import { MakerSetupError } from './maker-errors.js'
import { createMakerRuntime, type MakerRuntime, type MakerRuntimeStats } from './maker-runtime.js'
import {
  loadMakerStrategyOf,
  type MakerConfig,
  registerWithSandbox,
  requireMakerConfig,
  resolveMakerCredentials,
  type SandboxRegistration,
  unregisterFromSandbox,
} from './maker-setup.js'
import { createSafeMakerStrategy } from './safe-maker-strategy.js'

export type StartMakerParameters<Venue extends EmbeddedVenue> = {
  document: ConfigDocument
  /** The command line's `--live`: required, with `mode: live`. */
  live: boolean
  logger: Logger
  env?: Readonly<Record<string, string | undefined>> | undefined
  startEmbedded?: StartEmbeddedVenue<Venue> | undefined
}

export type RunningMaker<Venue extends EmbeddedVenue = EmbeddedVenue> = {
  session: Session<Venue>
  maker: MakerConfig
  server: MakerServer
  runtime: MakerRuntime
  /**
   * Halts the server (requests are refused), follows open firm quotes once more, unregisters from a sandbox and closes
   * the session; returns the journal's firm-quote summary. Safe to call twice.
   */
  stop: (reason: string) => Promise<{ summary: FirmQuoteSummary; stats: MakerRuntimeStats }>
}

/**
 * Serves the market-maker interface from the config's `maker` section: everything a user can get wrong (credentials,
 * the strategy and its config) is refused before a chain starts; then the runtime's session (venue, chains, account,
 * journal, clock), the maker runtime and its server, registered with the sandbox in paper mode.
 */
export async function startMaker<Venue extends EmbeddedVenue = EmbeddedVenue>({
  document,
  live,
  logger,
  env = process.env,
  startEmbedded,
}: StartMakerParameters<Venue>): Promise<RunningMaker<Venue>> {
  const maker = requireMakerConfig(document)
  const credentials = resolveMakerCredentials(maker, { env, baseDirectory: dirname(document.file) })
  const strategy = createSafeMakerStrategy(await loadMakerStrategyOf(document, maker), { config: maker.strategy.config })
  const session = await openSession({
    config: document.config,
    logger,
    env,
    startEmbedded,
    live,
    enforceMode: true,
    checkpoints: 'background',
  })
  const { config } = session
  const sandboxUrl = session.venue.embedded ? session.venue.url : config.mode === 'paper' ? config.venue.url : undefined
  let runtime: MakerRuntime | undefined
  let server: MakerServer | undefined
  let registrations: SandboxRegistration[] = []
  const release = async () => {
    if (sandboxUrl !== undefined && registrations.length > 0) await unregisterFromSandbox(sandboxUrl, registrations.splice(0), logger)
    server?.halt('maker stopped')
    await server?.close()
    await runtime?.stop()
    await session.close()
  }
  try {
    runtime = createMakerRuntime({
      strategy,
      chainIds: Object.keys(maker.chains).map(Number),
      api: session.api,
      chains: session.chains,
      contracts: session.contracts,
      account: session.account,
      journal: session.journal,
      clock: session.clock,
      approvalPolicy: config.executor.approvalPolicy,
      intervals: maker.intervals,
      logger,
    })
    await runtime.start()
    const served = runtime
    server = await startMakerServer({
      book: served.book,
      chains: Object.entries(maker.chains).map(([chainId, { basePath }]) => ({
        chainId: Number(chainId),
        basePath,
        rfq: served.rfqOf(Number(chainId)),
      })),
      account: session.account,
      clock: session.clock,
      // Request timestamps are the taker's wall clock; firm expiries count on the venue's.
      authClock: systemClock,
      auth: credentials === undefined ? undefined : { credentials, toleranceMs: maker.auth.toleranceMs },
      allowIps: maker.allowIps,
      host: maker.host,
      port: maker.port,
      bodyLimitBytes: maker.bodyLimitBytes,
      requestTimeoutMs: maker.requestTimeoutMs,
      firmExpirySeconds: maker.firmExpirySeconds,
      websocket: maker.websocket,
      checkFirm: served.checkFirm,
      recordFirmQuote: served.recordFirmQuote,
      logger,
    })
    if (maker.registerWithSandbox ?? config.mode === 'paper') {
      if (sandboxUrl === undefined) {
        throw new MakerSetupError('maker.registerWithSandbox is on, but the venue is not a sandbox', {
          hint: 'registration is for paper mode (the embedded sandbox or one on loopback); set maker.registerWithSandbox: false',
          errorClass: 'operational',
        })
      }
      registrations = await registerWithSandbox({
        sandboxUrl,
        name: maker.name,
        endpoints: server.endpoints,
        credentials: credentials?.[0],
        websocket: maker.websocket,
        logger,
      })
    }
  } catch (error) {
    await release()
    throw error
  }
  const running = { runtime, server }
  let stopping: Promise<{ summary: FirmQuoteSummary; stats: MakerRuntimeStats }> | undefined
  return {
    session,
    maker,
    server,
    runtime,
    stop: (reason) => {
      stopping ??= (async () => {
        try {
          running.server.halt(reason)
          await running.runtime.stop(`maker stopped (${reason})`)
          return { summary: session.journal.firmQuoteSummary(), stats: running.runtime.stats() }
        } finally {
          await release()
        }
      })()
      return stopping
    },
  }
}
