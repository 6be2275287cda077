import { type Command, InvalidArgumentError } from 'commander'
import { loadConfigDocument } from '../config/load-config.js'
import { summarizeJournal } from '../journal/journal-summary.js'
import { createLogger } from '../log/logger.js'
import { type BotSession, openBot } from '../runtime/open-bot.js'
import { reportCommandError } from './command-errors.js'
import { descriptionOf } from './command-summaries.js'
import { startEmbeddedSandbox } from './embedded-sandbox.js'
import { formatJournalSummary } from './journal-summary.js'
import { toJsonValue } from './json-output.js'
import { readTokenLabels } from './token-labels.js'

type RunOptions = { live?: boolean; for?: number; json?: boolean; logLevel?: string }

export function registerRunCommand(program: Command): void {
  program
    .command('run')
    .description(descriptionOf('run'))
    .argument('<config>', 'YAML configuration')
    .option('--live', 'confirm real orders (the config must also say mode: live)')
    .option('--for <seconds>', 'stop by itself after this many real seconds', parseSeconds)
    .option('--log-level <level>', 'trace, debug, info, warn, error or silent (default: DELTAFLOW_LOG_LEVEL or info)')
    .option('--json', 'print the final summary as one JSON document')
    .action(async (file: string, options: RunOptions) => {
      await runBot(file, options).catch((error: unknown) => reportCommandError(error, options.json))
    })
}

async function runBot(file: string, options: RunOptions): Promise<void> {
  const logger = createLogger({
    level: options.logLevel ?? process.env.DELTAFLOW_LOG_LEVEL ?? 'info',
    pretty: process.stderr.isTTY === true,
  })
  const document = loadConfigDocument(file)
  const session = await openBot({ document, live: options.live === true, logger, startEmbedded: startEmbeddedSandbox })
  try {
    logger.info(
      {
        mode: session.config.mode,
        venue: session.venue.embedded ? `embedded sandbox ${session.venue.url}` : session.venue.url,
        account: session.account.address,
        accountSource: session.accountSource,
        journal: session.journal.file,
        ops: session.ops?.url,
        strategies: session.strategies.map((strategy) => strategy.name),
      },
      'starting bot',
    )
    await session.bot.start()
    const reason = await stopSignal(options.for ?? session.config.runForSeconds)
    logger.info({ reason }, 'stopping: in-flight work finishes and is journaled')
    await session.bot.stop()
    await printSummary(session, options.json === true)
  } finally {
    await session.close()
  }
}

/** Resolves at the first SIGINT or SIGTERM, or after `seconds`; a second signal during shutdown exits at once. */
export function stopSignal(seconds: number | undefined): Promise<string> {
  return new Promise((resolve) => {
    const finish = (reason: string) => {
      clearTimeout(timer)
      process.off('SIGINT', onInt)
      process.off('SIGTERM', onTerm)
      const again = () => {
        process.stderr.write('second signal: exiting without waiting for in-flight work (the next start recovers it)\n')
        process.exit(130)
      }
      process.once('SIGINT', again)
      process.once('SIGTERM', again)
      resolve(reason)
    }
    const onInt = () => finish('SIGINT')
    const onTerm = () => finish('SIGTERM')
    process.once('SIGINT', onInt)
    process.once('SIGTERM', onTerm)
    const timer = seconds === undefined ? undefined : setTimeout(() => finish(`ran for ${seconds} s`), seconds * 1000)
  })
}

async function printSummary(session: BotSession, json: boolean): Promise<void> {
  const summary = summarizeJournal(session.journal)
  const stats = session.bot.stats()
  if (json) {
    process.stdout.write(`${JSON.stringify(toJsonValue({ summary, stats: { ...stats, strategies: strategyStats(stats.strategies) } }))}\n`)
    return
  }
  const lines = [
    '',
    `deltaflow run finished (${session.config.mode}): ${stats.quotes} quotes, ${stats.intentsQueued} intents, ` +
      `${stats.executions.accepted} accepted, ${stats.executions.refused} refused, ${stats.executions.failed} failed` +
      (stats.dryRunIntents > 0 ? `, ${stats.dryRunIntents} logged (dry run)` : ''),
  ]
  process.stdout.write(`${lines.join('\n')}\n${formatJournalSummary(summary, await readTokenLabels(summary, session.chains))}`)
}

function strategyStats(strategies: ReturnType<BotSession['bot']['stats']>['strategies']) {
  return Object.fromEntries(
    Object.entries(strategies).map(([name, stats]) => [name, { ...stats, lastError: stats.lastError?.message ?? null }]),
  )
}

export function parseSeconds(value: string): number {
  const parsed = Number(value)
  if (!Number.isFinite(parsed) || parsed <= 0)
    throw new InvalidArgumentError(`--for expects a positive number of seconds, received "${value}"`)
  return parsed
}
