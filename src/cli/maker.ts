import { dirname } from 'node:path'
import type { Command } from 'commander'
import { getContracts } from '../api/resources/get-contracts.js'
import type { DeploymentContracts } from '../chain/deployment.js'
import { loadConfigDocument } from '../config/load-config.js'
import type { FirmQuoteSummary } from '../journal/firm-quotes.js'
import { createLogger, type Logger } from '../log/logger.js'
import { MakerSetupError } from '../maker/runtime/maker-errors.js'
import { createMakerRuntime, type MakerRuntime, type MakerRuntimeStats } from '../maker/runtime/maker-runtime.js'
import { createSafeMakerStrategy } from '../maker/runtime/safe-maker-strategy.js'
import { type MakerServer, startMakerServer } from '../maker/server/maker-server.js'
import { systemClock } from '../time/clock.js'
import { type BotSession, openBotSession } from './bot-session.js'
import { reportCommandError } from './command-errors.js'
import { toJsonValue } from './json-output.js'
import {
  loadMakerStrategyOf,
  type MakerConfig,
  registerWithSandbox,
  requireMakerConfig,
  resolveMakerCredentials,
  type SandboxRegistration,
  unregisterFromSandbox,
} from './maker-setup.js'
import { parseSeconds, stopSignal } from './run.js'

type MakerOptions = { live?: boolean; for?: number; json?: boolean; logLevel?: string }

export function registerMakerCommand(program: Command): void {
  program
    .command('maker')
    .description('serve the market-maker interface from a maker strategy until SIGINT / SIGTERM (or --for), then summarize its firm quotes')
    .argument('<config>', 'YAML configuration with a maker section')
    .option('--live', 'confirm a live maker (the config must also say mode: live)')
    .option('--for <seconds>', 'stop by itself after this many real seconds', parseSeconds)
    .option('--log-level <level>', 'trace, debug, info, warn, error or silent (default: DELTAFLOW_LOG_LEVEL or info)')
    .option('--json', 'print one JSON ready line once serving, and the summary as one JSON line')
    .action(async (file: string, options: MakerOptions) => {
      await runMaker(file, options).catch((error: unknown) => reportCommandError(error, options.json))
    })
}

async function runMaker(file: string, options: MakerOptions): Promise<void> {
  const logger = createLogger({
    level: options.logLevel ?? process.env.DELTAFLOW_LOG_LEVEL ?? 'info',
    pretty: process.stderr.isTTY === true,
  })
  const document = loadConfigDocument(file)
  const maker = requireMakerConfig(document)
  // Everything a user can get wrong is refused before a chain starts: credentials, the strategy and its config.
  const credentials = resolveMakerCredentials(maker, { env: process.env, baseDirectory: dirname(file) })
  const strategy = createSafeMakerStrategy(await loadMakerStrategyOf(document, maker), { config: maker.strategy.config })
  // The maker runs no bot strategy: the session gives the venue, the chains, the account, the journal and the clock.
  const session = await openBotSession({
    document: { ...document, config: { ...document.config, strategies: [] } },
    live: options.live === true,
    logger,
  })
  let runtime: MakerRuntime | undefined
  let server: MakerServer | undefined
  let registrations: SandboxRegistration[] = []
  const sandboxUrl = session.sandbox?.url ?? (session.config.mode === 'paper' ? session.config.venue.url : undefined)
  try {
    const contracts: DeploymentContracts = Object.fromEntries((await getContracts(session.api)).chains)
    const chainIds = Object.keys(maker.chains).map(Number)
    runtime = createMakerRuntime({
      strategy,
      chainIds,
      api: session.api,
      chains: session.chains,
      contracts,
      account: session.account,
      journal: session.journal,
      clock: session.clock,
      approvalPolicy: session.config.executor.approvalPolicy,
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
    if (maker.registerWithSandbox ?? session.config.mode === 'paper') {
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
        logger,
      })
    }
    announce(session, server, maker, options.json === true, logger)
    const reason = await stopSignal(options.for ?? session.config.runForSeconds)
    logger.info({ reason }, 'stopping the maker: the server refuses requests, open firm quotes are followed once more')
    server.halt(reason)
    await runtime.stop(`maker stopped (${reason})`)
    printSummary(session.journal.firmQuoteSummary(), runtime.stats(), options.json === true)
  } finally {
    if (sandboxUrl !== undefined && registrations.length > 0) await unregisterFromSandbox(sandboxUrl, registrations, logger)
    server?.halt('maker stopped')
    await server?.close()
    await runtime?.stop()
    await session.close()
  }
}

/** The ready line (--json: exactly one JSON line on stdout) once the server answers. */
function announce(session: BotSession, server: MakerServer, maker: MakerConfig, json: boolean, logger: Logger): void {
  logger.info(
    {
      mode: session.config.mode,
      venue: session.sandbox ? `embedded sandbox ${session.sandbox.url}` : session.config.venue.url,
      maker: server.maker,
      accountSource: session.accountSource,
      journal: session.journal.file,
      endpoints: server.endpoints,
      auth: maker.auth.enabled,
    },
    'maker serving',
  )
  if (json) {
    process.stdout.write(`${JSON.stringify({ endpoints: server.endpoints, maker: server.maker })}\n`)
    return
  }
  const lines = server.endpoints.map(({ chainId, url }) => `  chain ${chainId}: ${url}`)
  process.stdout.write(`deltaflow maker ${server.maker} serving (${session.config.mode}):\n${lines.join('\n')}\n`)
}

function printSummary(summary: FirmQuoteSummary, stats: MakerRuntimeStats, json: boolean): void {
  if (json) {
    process.stdout.write(`${JSON.stringify(toJsonValue({ summary: { firmQuotes: summary, stats } }))}\n`)
    return
  }
  const statuses = Object.entries(summary.byStatus)
    .map(([status, count]) => `${count} ${status}`)
    .join(', ')
  const flows = Object.entries(summary.flows).map(([token, { sold, bought }]) => `  ${token}: sold ${sold}, bought ${bought}`)
  process.stdout.write(
    `\ndeltaflow maker finished: ${summary.total} firm quotes (${statuses}); ${stats.quotes} quotes of the book, ` +
      `${stats.strategyFailures} strategy failures\n${flows.length > 0 ? `${flows.join('\n')}\n` : ''}`,
  )
}
