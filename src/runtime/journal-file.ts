import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { DeltaflowConfig } from '../config/schema.js'

/** The journal file used when the config names none and the venue is not embedded. */
export const defaultJournalFile = 'deltaflow.sqlite'

export type JournalFile = {
  file: string
  /** The folder of a throwaway journal, removed with it. */
  throwawayDirectory?: string
}

/**
 * Which journal a bot or command writes: the config's `db`, else `deltaflow.sqlite` in the working directory. An
 * embedded venue lives only as long as the process, so its orders go to a throwaway journal (in a folder of its own,
 * which the session removes when it closes) unless one is named.
 */
export function journalFileOf(config: Pick<DeltaflowConfig, 'db'>, { embedded }: { embedded: boolean }): JournalFile {
  if (config.db !== undefined) return { file: config.db }
  if (embedded) {
    const throwawayDirectory = mkdtempSync(join(tmpdir(), 'deltaflow-paper-'))
    return { file: join(throwawayDirectory, 'journal.sqlite'), throwawayDirectory }
  }
  return { file: defaultJournalFile }
}
