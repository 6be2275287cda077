import { existsSync } from 'node:fs'
import { BaseError } from '../errors/base.js'
import { type Journal, openJournal } from '../journal/journal.js'
import { defaultJournalFile, journalFileOf } from '../runtime/journal-file.js'
import { systemClock } from '../time/clock.js'
import type { JournalOptions } from './journal-options.js'

export class JournalFileMissingError extends BaseError {
  override name = 'JournalFileMissingError'
}

/**
 * Which journal a command that only reads it opens: --db, else the config's `db`, else `deltaflow.sqlite`. The config
 * (YAML and its schema) is loaded only when --config names one.
 */
export async function resolveJournalFile(options: JournalOptions): Promise<string> {
  if (options.db !== undefined) return options.db
  if (options.config === undefined) return defaultJournalFile
  const { resolveVenueConfig } = await import('./venue-options.js')
  return journalFileOf(resolveVenueConfig(options), { embedded: false }).file
}

/** Opens the journal a read-only command names; a missing file is an error, not a new empty journal. */
export async function openExistingJournal(options: JournalOptions): Promise<Journal> {
  const file = await resolveJournalFile(options)
  if (!existsSync(file)) {
    throw new JournalFileMissingError(`No journal at ${file}`, {
      hint: 'Name the journal with --db FILE (or `db:` in the config); a trading command creates it on first use.',
      errorClass: 'operational',
    })
  }
  return openJournal({ file, clock: systemClock })
}
