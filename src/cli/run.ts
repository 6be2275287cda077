import { type Command, InvalidArgumentError } from 'commander'
import { createLogger, logLevels, resolveLogLevel } from '../log/logger.js'
import { type BotStopReport, defaultStopWaitMs } from '../runtime/bot.js'
import { loadCheckedConfig } from '../runtime/load-strategies.js'
import { type BotSession, openBot } from '../runtime/open-bot.js'
import { reportCommandError } from './command-errors.js'
import { descriptionOf } from './command-summaries.js'
import { startEmbeddedSandbox } from './embedded-sandbox.js'
import { formatJournalSummary, summarizeJournalWithTokens } from './journal-summary.js'
import { toJsonValue } from './json-output.js'
import { readTokenLabels } from './token-labels.js'

type RunOptions = { live?: boolean; for?: number; stopWait?: number; json?: boolean; logLevel?: string }

export function registerRunCommand(program: Command): void {
  program
    .command('run')
    .description(descriptionOf('run'))
    .argument('<config>', 'YAML configuration')
    .option('--live', 'confirm real orders (the config must also say mode: live)')
    .option('--for <seconds>', 'stop by itself after this many real seconds', parseSeconds)
    .option(
      '--stop-wait <seconds>',
      `at stop, follow orders still CANCELLING until final for up to this many seconds of the venue's clock (default ${defaultStopWaitMs / 1000})`,
      parseStopWait,
    )
    .option('--log-level <level>', `${logLevels.join(', ')} (default: DELTAFLOW_LOG_LEVEL or info)`)
    .option('--json', 'print the final summary as one JSON document')
    .action(async (file: string, options: RunOptions) => {
      await runBot(file, options).catch((error: unknown) => reportCommandError(error, options.json))
    })
}

async function runBot(file: string, options: RunOptions): Promise<void> {
  const logger = createLogger({
    level: resolveLogLevel({ flag: options.logLevel }),
    pretty: process.stderr.isTTY === true,
  })
  const document = await loadCheckedConfig(file, { requireStrategies: true })
  const session = await openBot({
    document,
    live: options.live === true,
    logger,
    startEmbedded: startEmbeddedSandbox,
    stopWaitMs: options.stopWait === undefined ? undefined : options.stopWait * 1000,
  })
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
    const stopped = await session.bot.stop()
    await printSummary(session, stopped, options.json === true)
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

async function printSummary(session: BotSession, stopped: BotStopReport, json: boolean): Promise<void> {
  const summary = summarizeJournalWithTokens(session.journal)
  const stats = session.bot.stats()
  if (json) {
    const document = { summary, stats: { ...stats, strategies: strategyStats(stats.strategies) }, stop: stopped }
    process.stdout.write(`${JSON.stringify(toJsonValue(document))}\n`)
    return
  }
  const lines = [
    '',
    `deltaflow run finished (${session.config.mode}): ${stats.quotes} quotes, ${stats.intentsQueued} intents, ` +
      `${stats.executions.accepted} accepted, ${stats.executions.refused} refused, ${stats.executions.failed} failed` +
      (stats.dryRunIntents > 0 ? `, ${stats.dryRunIntents} logged (dry run)` : ''),
    ...formatStopReport(stopped),
  ]
  process.stdout.write(`${lines.join('\n')}\n${formatJournalSummary(summary, await readTokenLabels(summary, session.chains))}`)
}

function strategyStats(strategies: ReturnType<BotSession['bot']['stats']>['strategies']) {
  return Object.fromEntries(
    Object.entries(strategies).map(([name, stats]) => [name, { ...stats, lastError: stats.lastError?.message ?? null }]),
  )
}

/** The orders cancelling at stop: how many were followed, and each one still pending by name. */
export function formatStopReport({ followed, pending, waitedMs, stopWaitMs }: BotStopReport): string[] {
  if (followed === 0) return []
  const seconds = (ms: number) => `${Math.round(ms / 100) / 10} s`
  const lines = [
    `cancelling at stop: ${followed} order(s) followed for ${seconds(waitedMs)} of venue time, ${followed - pending.length} final`,
  ]
  if (pending.length > 0) {
    lines.push(`still pending after ${seconds(stopWaitMs)} (the next start or \`deltaflow reconcile\` follows them):`)
    for (const order of pending) {
      lines.push(
        `  ${order.id}  ${order.status}  strategy ${order.strategy ?? '(none)'}  chain ${order.chainId}  venue id ${order.venueId ?? '(none)'}`,
      )
    }
  }
  return lines
}

export function parseSeconds(value: string): number {
  const parsed = Number(value)
  if (!Number.isFinite(parsed) || parsed <= 0)
    throw new InvalidArgumentError(`--for expects a positive number of seconds, received "${value}"`)
  return parsed
}

export function parseStopWait(value: string): number {
  const parsed = Number(value)
  if (value.trim() === '' || !Number.isFinite(parsed) || parsed < 0) {
    throw new InvalidArgumentError(`--stop-wait expects a number of seconds of at least 0, received "${value}"`)
  }
  return parsed
}
