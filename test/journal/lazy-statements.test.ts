import BetterSqlite3 from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import { openJournal } from '../../src/journal/journal.js'
import { prepareLazily } from '../../src/journal/lazy-statements.js'
import { ManualClock } from '../../src/time/clock.js'

describe('prepareLazily', () => {
  it('prepares a statement where it first runs, with the modes asked for before, and gives prepare back', () => {
    const db = new BetterSqlite3(':memory:')
    try {
      const done = prepareLazily(db)
      // The table does not exist yet: an eager prepare would throw here.
      const insert = db.prepare('INSERT INTO notes (id, text) VALUES (?, ?)')
      const texts = db.prepare('SELECT text FROM notes ORDER BY id').pluck()
      const rows = db.prepare('SELECT id, text FROM notes ORDER BY id').raw()
      const one = db.prepare('SELECT text FROM notes WHERE id = ?')
      done()
      expect(() => db.prepare('SELECT * FROM notes')).toThrow(/no such table/)
      db.exec('CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL)')
      expect(insert.run(1, 'a').changes).toBe(1)
      insert.run(2, 'b')
      expect(texts.all()).toEqual(['a', 'b'])
      expect(rows.all()).toEqual([
        [1, 'a'],
        [2, 'b'],
      ])
      expect(one.get(2)).toEqual({ text: 'b' })
      expect([...texts.iterate()]).toEqual(['a', 'b'])
      // A mode changed after the first run changes the prepared statement.
      expect(texts.pluck(false).all()).toEqual([{ text: 'a' }, { text: 'b' }])
      expect(() => db.prepare('SELECT missing FROM notes')).toThrow(/no such column/)
    } finally {
      db.close()
    }
  })

  it('leaves an in-memory journal working as a file journal does', () => {
    const journal = openJournal({ file: ':memory:', clock: new ManualClock(1_000) })
    try {
      const id = `0x${'ab'.repeat(32)}`
      journal.recordIntent({ id, strategy: 'sample', kind: 'swap', intent: { kind: 'swap' } })
      journal.recordSignedOrder({
        id: 'order-1',
        intentId: id,
        mode: 'delta',
        account: `0x${'11'.repeat(20)}`,
        chainId: 1,
        srcToken: `0x${'22'.repeat(20)}`,
        destToken: `0x${'33'.repeat(20)}`,
        srcAmount: 5n,
        destAmount: 7n,
        side: 'SELL',
        signedPayload: {},
      })
      journal.recordFill({
        orderId: 'order-1',
        chainId: 1,
        txHash: `0x${'cd'.repeat(32)}`,
        spentAmount: 5n,
        receivedAmount: 7n,
        source: 'venue',
      })
      expect(journal.getOrder({ id: 'order-1' })).toMatchObject({ intentId: id, status: 'SIGNED', srcAmount: 5n })
      expect(journal.fillsOf('order-1')).toMatchObject([{ spentAmount: 5n, receivedAmount: 7n }])
      expect(journal.checkIntegrity()).toBe('ok')
    } finally {
      journal.close()
    }
  })
})
