import { type Command, InvalidArgumentError } from 'commander'
import { reportCommandError } from './command-errors.js'
import { descriptionOf } from './command-summaries.js'
import { consoleTokenOf, formatConsoleStatus, readConsoleStatus } from './console-status.js'
import { labelChainsOf, openExistingJournal } from './journal-file.js'
import { addJournalOptions, type JournalOptions } from './journal-options.js'
import { describeTokenLabels, formatJournalSummary, summarizeJournalWithTokens } from './journal-summary.js'
import { readTokenLabels } from './token-labels.js'

export function registerStatusCommand(program: Command): void {
  addJournalOptions(
    program
      .command('status')
      .description(descriptionOf('status'))
      .option('--recent <n>', 'how many recent fills to list', parseCount, 10)
      .option('--url <url>', "read a running bot's console (its ops server, e.g. http://127.0.0.1:9464) instead of the journal")
      .option('--token-env <name>', 'with --url: the variable holding the console token (default DELTAFLOW_OPS_TOKEN)')
      .option('--token-file <file>', 'with --url: a file holding the console token'),
  ).action(async (options: JournalOptions & { recent: number; url?: string; tokenEnv?: string; tokenFile?: string }) => {
    try {
      if (options.url !== undefined) {
        const { status, summary } = await readConsoleStatus({ ...options, url: options.url }, consoleTokenOf(options))
        const labels = await readTokenLabels(summary, await labelChainsOf(options))
        process.stdout.write(
          options.json
            ? `${JSON.stringify({ ...summary, bot: status, tokens: describeTokenLabels(labels) })}\n`
            : `${formatConsoleStatus(status)}${formatJournalSummary(summary, labels)}`,
        )
        return
      }
      const journal = await openExistingJournal(options)
      try {
        const summary = summarizeJournalWithTokens(journal, { recentFills: options.recent })
        const labels = await readTokenLabels(summary, await labelChainsOf(options))
        // JSON keeps raw integer amounts; `tokens` gives the symbol and decimals of each token it knows.
        process.stdout.write(
          options.json ? `${JSON.stringify({ ...summary, tokens: describeTokenLabels(labels) })}\n` : formatJournalSummary(summary, labels),
        )
      } finally {
        journal.close()
      }
    } catch (error) {
      reportCommandError(error, options.json)
    }
  })
}

function parseCount(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) > 10_000) {
    throw new InvalidArgumentError(`--recent expects a whole number from 0 to 10000, received "${value}"`)
  }
  return Number(value)
}
