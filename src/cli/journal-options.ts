import type { Command } from 'commander'
import { collectRpc } from './rpc-option.js'

/** Options of the commands that only read the journal. */
export type JournalOptions = { config?: string; db?: string; rpc?: string[]; json?: boolean }

export function addJournalOptions(command: Command): Command {
  return command
    .option('--config <file>', 'YAML configuration (its `db` names the journal; its chains label tokens)')
    .option('--db <file>', 'SQLite journal file (default: deltaflow.sqlite)')
    .option(
      '--rpc <chain=url>',
      'RPC URL of a chain, to read the symbol and decimals of tokens deltaflow does not know (repeatable)',
      collectRpc,
      [],
    )
    .option('--json', 'print one machine-readable JSON document')
}
