import type { Command } from 'commander'
import { reportCommandError } from './command-errors.js'
import { addJournalOptions, type JournalOptions } from './journal-options.js'
import { formatJournalSummary, summarizeJournal } from './journal-summary.js'
import { openExistingJournal } from './orders.js'

export function registerStatusCommand(program: Command): void {
  addJournalOptions(
    program
      .command('status')
      .description("what the journal says: each strategy's intents, orders by status and net token flows, and recent fills")
      .option('--recent <n>', 'how many recent fills to list', (value) => Number.parseInt(value, 10), 10),
  ).action((options: JournalOptions & { recent: number }) => {
    try {
      const journal = openExistingJournal(options)
      try {
        const summary = summarizeJournal(journal, { recentFills: options.recent })
        process.stdout.write(options.json ? `${JSON.stringify(summary)}\n` : formatJournalSummary(summary))
      } finally {
        journal.close()
      }
    } catch (error) {
      reportCommandError(error, options.json)
    }
  })
}
