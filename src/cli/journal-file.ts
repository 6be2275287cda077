import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type Journal, openJournal } from '../journal/journal.js'
import type { Clock } from '../time/clock.js'
import { resolveVenueConfig, type VenueOptions } from './venue-options.js'

/** The journal file used when neither --db nor the config's `db` names one. */
export const defaultJournalFile = 'deltaflow.sqlite'

/**
 * Which journal a command uses: --db, else the config's `db`, else `deltaflow.sqlite` in the working directory. An
 * embedded sandbox lives only as long as the command, so its orders go to a throwaway journal unless one is named.
 */
export function resolveJournalFile(options: VenueOptions, { embeddedSandbox }: { embeddedSandbox: boolean }): string {
  const config = resolveVenueConfig(options)
  if (options.db ?? config.db) return (options.db ?? config.db) as string
  if (embeddedSandbox) return join(mkdtempSync(join(tmpdir(), 'deltaflow-sandbox-journal-')), 'journal.sqlite')
  return defaultJournalFile
}

export function openCommandJournal(options: VenueOptions, clock: Clock, embeddedSandbox = false): Journal {
  return openJournal({ file: resolveJournalFile(options, { embeddedSandbox }), clock })
}
