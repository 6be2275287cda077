import { afterAll, afterEach, beforeEach } from 'vitest'
import { type Journal, openJournal } from '../../src/journal/journal.js'
import { ManualClock } from '../../src/time/clock.js'
import { createJournalDirectory } from './journal-fixtures.js'

export type JournalContext = { journal: Journal; clock: ManualClock; file: string }

/** Test start time: 2023-11-14T22:13:20Z, under two hours before a UTC midnight. */
export const journalStartMs = 1_700_000_000_000

/** A fresh journal file per test. Call at module or describe level; read `context.journal` inside tests. */
export function useJournal(): JournalContext {
  const directory = createJournalDirectory()
  const context = {} as JournalContext
  let count = 0
  beforeEach(() => {
    context.clock = new ManualClock(journalStartMs)
    context.file = directory.path(`journal-${count++}.sqlite`)
    context.journal = openJournal({ file: context.file, clock: context.clock })
  })
  afterEach(() => context.journal.close())
  afterAll(() => directory.cleanup())
  return context
}

export const txHash = (n: number): string => `0x${n.toString(16).padStart(64, '0')}`
