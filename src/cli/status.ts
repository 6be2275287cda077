import type { Command } from 'commander'
import { summarizeJournal } from '../journal/journal-summary.js'
import { reportCommandError } from './command-errors.js'
import { descriptionOf } from './command-summaries.js'
import { openExistingJournal } from './journal-file.js'
import { addJournalOptions, type JournalOptions } from './journal-options.js'
import { formatJournalSummary } from './journal-summary.js'

export function registerStatusCommand(program: Command): void {
  addJournalOptions(
    program
      .command('status')
      .description(descriptionOf('status'))
      .option('--recent <n>', 'how many recent fills to list', (value) => Number.parseInt(value, 10), 10),
  ).action(async (options: JournalOptions & { recent: number }) => {
    try {
      const journal = await openExistingJournal(options)
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
