import type { Command } from 'commander'

/** Options of the commands that only read the journal. */
export type JournalOptions = { config?: string; db?: string; json?: boolean }

export function addJournalOptions(command: Command): Command {
  return command
    .option('--config <file>', 'YAML configuration (its `db` names the journal)')
    .option('--db <file>', 'SQLite journal file (default: deltaflow.sqlite)')
    .option('--json', 'print one machine-readable JSON document')
}
