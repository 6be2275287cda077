import type { Command } from 'commander'
import type { FirmQuoteSummary } from '../journal/firm-quotes.js'
import { createLogger, type Logger, logLevels, resolveLogLevel } from '../log/logger.js'
import type { MakerRuntimeStats } from '../maker/runtime/maker-runtime.js'
import { type RunningMaker, startMaker } from '../maker/runtime/start-maker.js'
import { loadCheckedConfig } from '../runtime/load-strategies.js'
import { reportCommandError } from './command-errors.js'
import { descriptionOf } from './command-summaries.js'
import { startEmbeddedSandbox } from './embedded-sandbox.js'
import { toJsonValue } from './json-output.js'
import { parseSeconds, stopSignal } from './run.js'

type MakerOptions = { live?: boolean; for?: number; json?: boolean; logLevel?: string }

export function registerMakerCommand(program: Command): void {
  program
    .command('maker')
    .description(descriptionOf('maker'))
    .argument('<config>', 'YAML configuration with a maker section')
    .option('--live', 'confirm a live maker (the config must also say mode: live)')
    .option('--for <seconds>', 'stop by itself after this many real seconds', parseSeconds)
    .option('--log-level <level>', `${logLevels.join(', ')} (default: DELTAFLOW_LOG_LEVEL or info)`)
    .option('--json', 'print one JSON ready line once serving, and the summary as one JSON line')
    .action(async (file: string, options: MakerOptions) => {
      await runMaker(file, options).catch((error: unknown) => reportCommandError(error, options.json))
    })
}

async function runMaker(file: string, options: MakerOptions): Promise<void> {
  const logger = createLogger({
    level: resolveLogLevel({ flag: options.logLevel, fallback: 'info' }),
    pretty: process.stderr.isTTY === true,
  })
  const document = await loadCheckedConfig(file)
  const running = await startMaker({
    document,
    live: options.live === true,
    logger,
    startEmbedded: startEmbeddedSandbox,
  })
  try {
    announce(running, options.json === true, logger)
    const reason = await stopSignal(options.for ?? running.session.config.runForSeconds)
    logger.info({ reason }, 'stopping the maker: the server refuses requests, open firm quotes are followed once more')
    const { summary, stats } = await running.stop(reason)
    printSummary(summary, stats, options.json === true)
  } finally {
    await running.stop('maker stopped')
  }
}

/** The ready line (--json: exactly one JSON line on stdout) once the server answers. */
function announce({ session, server, maker }: RunningMaker, json: boolean, logger: Logger): void {
  logger.info(
    {
      mode: session.config.mode,
      venue: session.venue.embedded ? `embedded sandbox ${session.venue.url}` : session.venue.url,
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
