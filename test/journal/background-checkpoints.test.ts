import { copyFileSync } from 'node:fs'
import BetterSqlite3 from 'better-sqlite3'
import { afterAll, describe, expect, it } from 'vitest'
import { inlineCheckpointPages, startBackgroundCheckpoints } from '../../src/journal/background-checkpoints.js'
import { openJournal } from '../../src/journal/journal.js'
import { systemClock } from '../../src/time/clock.js'
import { waitFor } from '../helpers/wait-for.js'
import { createJournalDirectory, recordSampleOrder } from './journal-fixtures.js'

const directory = createJournalDirectory()
afterAll(() => directory.cleanup())

/**
 * The orders a copy of the database file alone holds: what checkpoints have moved out of the WAL. The copy is taken
 * without SQLite's locks, so one taken while a checkpoint is writing pages may be torn (some pages new, some old):
 * that copy says nothing yet (undefined), and the next one is read. A file that stays corrupt still fails the wait.
 */
function ordersInFileAlone(file: string, copy: string): number | undefined {
  copyFileSync(file, copy)
  const db = new BetterSqlite3(copy, { readonly: true })
  try {
    // A journal whose schema is still in the WAL has no tables in its file yet.
    if (db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'orders'").get() === undefined) return 0
    return (db.prepare('SELECT count(*) AS n FROM orders').get() as { n: number }).n
  } catch (error) {
    if (error instanceof BetterSqlite3.SqliteError && (error.code === 'SQLITE_CORRUPT' || error.code === 'SQLITE_NOTADB')) return undefined
    throw error
  } finally {
    db.close()
  }
}

describe('openJournal with background checkpoints', () => {
  it('moves commits into the database file from a thread of its own, none of them checkpointing inline', async () => {
    const file = directory.path('background.sqlite')
    const journal = openJournal({ file, clock: systemClock, checkpoints: 'background' })
    try {
      for (let index = 0; index < 50; index++) recordSampleOrder(journal, `order-${index}`)
      // 50 orders are far below the inline threshold: only the thread can have copied them.
      await waitFor(
        'the 50 orders in the database file',
        () => ordersInFileAlone(file, directory.path('copy-1.sqlite')) === 50 || undefined,
        10_000,
        25,
      )
      expect(journal.listOrders({}).length).toBe(50)
      expect(journal.checkIntegrity()).toBe('ok')
    } finally {
      journal.close()
    }
  })

  it('leaves the WAL to the commits with inline checkpoints (the default)', async () => {
    const file = directory.path('inline.sqlite')
    const journal = openJournal({ file, clock: systemClock })
    try {
      for (let index = 0; index < 50; index++) recordSampleOrder(journal, `order-${index}`)
      await new Promise((resolve) => setTimeout(resolve, 1_200))
      expect(ordersInFileAlone(file, directory.path('copy-2.sqlite'))).toBe(0)
    } finally {
      journal.close()
    }
  })
})

describe('startBackgroundCheckpoints', () => {
  it('gives checkpoints back to the connection when stopped', () => {
    const file = directory.path('stop.sqlite')
    openJournal({ file, clock: systemClock }).close()
    const db = new BetterSqlite3(file)
    try {
      const background = startBackgroundCheckpoints({ db, file })
      expect(db.pragma('wal_autocheckpoint', { simple: true })).toBeGreaterThan(inlineCheckpointPages)
      background.stop()
      expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(inlineCheckpointPages)
    } finally {
      db.close()
    }
  })

  it('gives checkpoints back to the connection when its thread cannot open the file', async () => {
    const db = new BetterSqlite3(':memory:')
    try {
      startBackgroundCheckpoints({ db, file: directory.path('missing.sqlite') })
      await waitFor(
        'checkpoints given back to the connection',
        () => db.pragma('wal_autocheckpoint', { simple: true }) === inlineCheckpointPages || undefined,
        10_000,
        25,
      )
    } finally {
      db.close()
    }
  })
})
