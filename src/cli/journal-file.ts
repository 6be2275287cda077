import { journalFileOf } from '../runtime/journal-file.js'
import type { JournalOptions } from './journal-options.js'
import { resolveVenueConfig } from './venue-options.js'

/** Which journal a command that only reads it opens: --db, else the config's `db`, else `deltaflow.sqlite`. */
export function resolveJournalFile(options: JournalOptions): string {
  return journalFileOf(resolveVenueConfig(options), { embedded: false })
}
