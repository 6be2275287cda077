import BetterSqlite3 from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import { type OrderEvent, openJournal } from '../../src/journal/journal.js'
import { JournalConflictError, JournalRecordNotFoundError, JournalValueError } from '../../src/journal/journal-errors.js'
import { journalMigrations, migrateJournal } from '../../src/journal/migrations.js'
import { chainSql, type RecordFillParameters } from '../../src/journal/order-events.js'
import { recordSampleOrder } from './journal-fixtures.js'
import { txHash, useJournal } from './use-journal.js'

const context = useJournal()

type FillEvent = { type: 'fill' } & RecordFillParameters

/** A chain log of transaction `n` (log index 0 unless overridden). */
function fill(orderId: string, n: number, overrides: Partial<RecordFillParameters> = {}): FillEvent {
  return {
    type: 'fill',
    orderId,
    chainId: 1,
    txHash: txHash(n),
    logIndex: 0,
    spentAmount: 10n,
    receivedAmount: 20n,
    source: 'chain',
    ...overrides,
  }
}

/** The venue's view of a fill: no log index, no block. */
function venueFill(orderId: string, n: number, overrides: Partial<RecordFillParameters> = {}): FillEvent {
  const { logIndex: _logIndex, blockNumber: _blockNumber, ...venue } = fill(orderId, n, { source: 'venue', ...overrides })
  return venue
}

describe('appendOrderEvents status changes', () => {
  it('writes every change of an order in one batch, in order, and leaves the order at the last one', () => {
    const { journal, clock } = context
    recordSampleOrder(journal, 'o1')
    recordSampleOrder(journal, 'o2')
    clock.advance(7)
    const changed = journal.appendOrderEvents([
      { type: 'status', orderId: 'o1', status: 'PENDING' },
      { type: 'status', orderId: 'o2', status: 'ACTIVE' },
      { type: 'status', orderId: 'o1', status: 'PENDING', reason: 'repeat' },
      { type: 'status', orderId: 'o1', status: 'ACTIVE', reason: 'auction won' },
      { type: 'status', orderId: 'o1', status: 'COMPLETED' },
    ])
    expect(changed).toBe(4)
    expect(journal.orderHistory('o1')).toEqual([
      { orderId: 'o1', status: 'SIGNED', reason: 'signed', at: 1_700_000_000_000 },
      { orderId: 'o1', status: 'PENDING', reason: null, at: 1_700_000_000_007 },
      { orderId: 'o1', status: 'ACTIVE', reason: 'auction won', at: 1_700_000_000_007 },
      { orderId: 'o1', status: 'COMPLETED', reason: null, at: 1_700_000_000_007 },
    ])
    expect(journal.getOrder({ id: 'o1' })).toMatchObject({ status: 'COMPLETED', updatedAt: 1_700_000_000_007 })
    expect(journal.getOrder({ id: 'o2' })?.status).toBe('ACTIVE')
    expect(journal.latestStatusChange('o1')).toEqual(journal.orderHistory('o1').at(-1))
    // The next change continues the history after the batch's last one.
    journal.recordStatus({ orderId: 'o2', status: 'CANCELLING', reason: 'asked' })
    expect(journal.orderHistory('o2').map((change) => change.status)).toEqual(['SIGNED', 'ACTIVE', 'CANCELLING'])
    expect(journal.latestStatusChange('o2')).toEqual({ orderId: 'o2', status: 'CANCELLING', reason: 'asked', at: 1_700_000_000_007 })
    expect(journal.latestStatusChange('unknown')).toBeUndefined()
  })

  it('writes nothing of the batch when a status is foreign to its order’s mode', () => {
    const { journal } = context
    recordSampleOrder(journal, 'o3')
    recordSampleOrder(journal, 'm3', { mode: 'market' })
    const batch: OrderEvent[] = [
      fill('o3', 1),
      { type: 'status', orderId: 'o3', status: 'PENDING' },
      { type: 'status', orderId: 'm3', status: 'COMPLETED' },
    ]
    expect(() => journal.appendOrderEvents(batch)).toThrow(JournalConflictError)
    expect(journal.getOrder({ id: 'o3' })?.status).toBe('SIGNED')
    expect(journal.orderHistory('o3')).toHaveLength(1)
    expect(journal.fillsOf('o3')).toEqual([])
  })

  it('writes nothing of the batch when a fill names an order never recorded', () => {
    const { journal } = context
    recordSampleOrder(journal, 'o4')
    expect(() => journal.appendOrderEvents([{ type: 'status', orderId: 'o4', status: 'PENDING' }, fill('ghost', 2)])).toThrow(
      JournalRecordNotFoundError,
    )
    expect(journal.orderHistory('o4')).toHaveLength(1)
  })
})

describe('appendOrderEvents and foreign keys', () => {
  it('leaves foreign keys enforced after a batch, whether it committed or failed', () => {
    const { journal } = context
    recordSampleOrder(journal, 'k1')
    journal.appendOrderEvents([fill('k1', 30)])
    expect(() => journal.appendOrderEvents([fill('ghost', 31)])).toThrow(JournalRecordNotFoundError)
    // Outside a batch, an unknown order is caught by SQLite's foreign key alone.
    expect(() => journal.recordFill(fill('ghost', 32))).toThrow(JournalRecordNotFoundError)
    expect(() => journal.recordRefund({ orderId: 'ghost', txHash: txHash(33), chainId: 1, token: '0x01', amount: 1n })).toThrow(
      JournalRecordNotFoundError,
    )
  })
})

describe('appendOrderEvents fills', () => {
  it('merges the chain log and the venue view of one fill in one batch into a row seen by both', () => {
    const { journal } = context
    recordSampleOrder(journal, 'f1')
    recordSampleOrder(journal, 'f2')
    const changed = journal.appendOrderEvents([
      fill('f1', 3, { logIndex: 4, blockNumber: 99 }),
      venueFill('f1', 3),
      venueFill('f2', 4),
      fill('f2', 4, { logIndex: 2, blockNumber: 100 }),
    ])
    expect(changed).toBe(2)
    expect(journal.fillsOf('f1')).toMatchObject([{ source: 'both', logIndex: 4, blockNumber: 99 }])
    expect(journal.fillsOf('f2')).toMatchObject([{ source: 'both', logIndex: 2, blockNumber: 100 }])
  })

  it('merges a chain log into the venue row stored by an earlier batch', () => {
    const { journal } = context
    recordSampleOrder(journal, 'f3')
    journal.appendOrderEvents([venueFill('f3', 5)])
    expect(journal.appendOrderEvents([fill('f3', 5, { logIndex: 1, blockNumber: 7 }), fill('f3', 6)])).toBe(1)
    expect(journal.fillsOf('f3')).toMatchObject([
      { txHash: txHash(5), source: 'both', logIndex: 1, blockNumber: 7 },
      { txHash: txHash(6), source: 'chain', logIndex: 0 },
    ])
  })

  it('gives the fills recorded after a given one, in order, and none after the last', () => {
    const { journal } = context
    recordSampleOrder(journal, 'f9')
    recordSampleOrder(journal, 'f10')
    journal.appendOrderEvents([fill('f9', 20), fill('f10', 21), fill('f9', 22), fill('f9', 23)])
    const all = journal.fillsOf('f9')
    expect(all.map((recorded) => recorded.txHash)).toEqual([txHash(20), txHash(22), txHash(23)])
    const [first, second, third] = all.map((recorded) => recorded.id)
    expect(journal.fillsOf('f9', 0)).toEqual(all)
    expect(journal.fillsOf('f9', first).map((recorded) => recorded.id)).toEqual([second, third])
    // An id between two of the order's fills (another order's) stops the walk there too.
    expect(journal.fillsOf('f9', (second ?? 0) - 1).map((recorded) => recorded.id)).toEqual([second, third])
    expect(journal.fillsOf('f9', third)).toEqual([])
    expect(journal.fillsOf('unknown', 0)).toEqual([])
  })

  it('counts a fill repeated from an earlier batch as no change', () => {
    const { journal } = context
    recordSampleOrder(journal, 'f4')
    journal.appendOrderEvents([fill('f4', 7)])
    expect(journal.appendOrderEvents([fill('f4', 7), venueFill('f4', 7)])).toBe(0)
    expect(journal.fillsOf('f4')).toMatchObject([{ source: 'both', logIndex: 0 }])
  })

  it('refuses a chain log or a venue fill already recorded for another order', () => {
    const { journal } = context
    recordSampleOrder(journal, 'f5')
    recordSampleOrder(journal, 'f6')
    journal.appendOrderEvents([fill('f5', 8), venueFill('f5', 9)])
    expect(() => journal.appendOrderEvents([fill('f6', 8)])).toThrow(JournalConflictError)
    expect(() => journal.recordFill(venueFill('f6', 9))).toThrow(JournalConflictError)
    expect(journal.fillsOf('f6')).toEqual([])
  })
})

describe('crosschain fills', () => {
  it('sets the delivery of a fill first seen without it, once', () => {
    const { journal } = context
    recordSampleOrder(journal, 'x1', { destChainId: 8453 })
    const origin = fill('x1', 10, { logIndex: 3 })
    expect(journal.recordFill(origin)).toBe(true)
    expect(journal.fillsOf('x1')).toMatchObject([{ destinationChainId: null, destinationTxHash: null }])

    const delivered = { ...origin, destinationChainId: 8453, destinationTxHash: `0x${'AB'.repeat(32)}` }
    expect(journal.recordFill(delivered)).toBe(false)
    journal.recordFill({ ...origin, destinationChainId: 10, destinationTxHash: txHash(11) })
    expect(journal.fillsOf('x1')).toMatchObject([{ source: 'chain', destinationChainId: 8453, destinationTxHash: `0x${'ab'.repeat(32)}` }])
  })

  it('stores the delivery known at once, and takes it from the venue view of a chain log', () => {
    const { journal } = context
    recordSampleOrder(journal, 'x2', { destChainId: 10 })
    recordSampleOrder(journal, 'x3', { destChainId: 10 })
    journal.recordFill(fill('x2', 12, { destinationChainId: 10, destinationTxHash: txHash(13) }))
    journal.appendOrderEvents([fill('x3', 14), venueFill('x3', 14, { destinationChainId: 10, destinationTxHash: txHash(15) })])
    expect(journal.fillsOf('x2')).toMatchObject([{ destinationChainId: 10, destinationTxHash: txHash(13) }])
    expect(journal.fillsOf('x3')).toMatchObject([{ source: 'both', destinationChainId: 10, destinationTxHash: txHash(15) }])
  })
})

describe('journal schema version 2', () => {
  it('carries a version 1 journal’s history and fills over, and appends after them', () => {
    const { file } = context
    context.journal.close()
    const old = `${file}-v1.sqlite`
    const v1 = new BetterSqlite3(old)
    migrateJournal(v1, old, journalMigrations.slice(0, 1))
    const order = (id: string) =>
      `INSERT INTO orders (id, intent_id, mode, account, beneficiary, chain_id, dest_chain_id, src_token, dest_token, src_amount,
         dest_amount, side, status, status_seq, signed_payload, created_at, updated_at)
       VALUES ('${id}', 'i', 'delta', '0x1', '0x1', 1, 1, '0x2', '0x3', '1', '1', 'SELL', 'ACTIVE', 2, '{}', 1, 1);`
    const history = (id: string, seq: number, status: string) =>
      `INSERT INTO order_status_history (order_id, seq, status, reason, at) VALUES ('${id}', ${seq}, '${status}', NULL, ${seq});`
    const fillRow = (id: number, orderId: string, logIndex: string, source: string) =>
      `INSERT INTO fills (id, order_id, chain_id, tx_hash, log_index, spent_amount, received_amount, source, recorded_at)
       VALUES (${id}, '${orderId}', 1, '${txHash(id)}', ${logIndex}, '5', '6', '${source}', 1);`
    v1.exec(
      [
        `INSERT INTO intents (id, strategy, kind, intent_json, status, created_at, updated_at) VALUES ('i', 's', 'swap', '{}', 'accepted', 1, 1);`,
        order('b'),
        order('a'),
        order('unfilled'),
        // Inserted out of order: the chains follow seq and fill id, not insertion.
        history('b', 2, 'ACTIVE'),
        history('a', 0, 'SIGNED'),
        history('b', 0, 'SIGNED'),
        history('a', 2, 'ACTIVE'),
        history('a', 1, 'PENDING'),
        history('b', 1, 'PENDING'),
        history('unfilled', 0, 'SIGNED'),
        fillRow(41, 'a', 'NULL', 'venue'),
        fillRow(7, 'b', '0', 'chain'),
        fillRow(43, 'a', '3', 'chain'),
        fillRow(9, 'a', '1', 'both'),
      ].join('\n'),
    )
    v1.close()

    const journal = openJournal({ file: old, clock: context.clock })
    context.journal = journal
    expect(journal.schemaVersion).toBe(journalMigrations.length)
    for (const id of ['a', 'b']) expect(journal.orderHistory(id).map((change) => change.status)).toEqual(['SIGNED', 'PENDING', 'ACTIVE'])
    expect(journal.orderHistory('unfilled').map((change) => change.status)).toEqual(['SIGNED'])
    expect(journal.fillsOf('a').map((fill) => [fill.id, fill.source])).toEqual([
      [9, 'both'],
      [41, 'venue'],
      [43, 'chain'],
    ])
    expect(journal.fillsOf('b').map((fill) => fill.id)).toEqual([7])
    expect(journal.fillsOf('unfilled')).toEqual([])

    // The venue row now merges with its chain log; new changes and fills go after the migrated ones.
    journal.appendOrderEvents([
      fill('a', 41, { logIndex: 2 }),
      fill('a', 50),
      { type: 'status', orderId: 'a', status: 'COMPLETED' },
      fill('unfilled', 51),
    ])
    expect(journal.fillsOf('a').map((row) => [row.id, row.source, row.logIndex])).toEqual([
      [9, 'both', 1],
      [41, 'both', 2],
      [43, 'chain', 3],
      [44, 'chain', 0],
    ])
    expect(journal.fillsOf('unfilled').map((row) => row.txHash)).toEqual([txHash(51)])
    expect(journal.orderHistory('a').map((change) => change.status)).toEqual(['SIGNED', 'PENDING', 'ACTIVE', 'COMPLETED'])
    expect(journal.checkIntegrity()).toBe('ok')
  })

  it('still refuses an unknown fill source', () => {
    const { journal, file } = context
    recordSampleOrder(journal, 'o')
    const db = new BetterSqlite3(file)
    try {
      const insert = db.prepare(
        `INSERT INTO fills (order_id, chain_id, tx_hash, spent_amount, received_amount, source, recorded_at) VALUES ('o', 1, ?, '1', '1', ?, 1)`,
      )
      expect(() => insert.run(txHash(1), 'agent')).toThrow(/CHECK constraint failed/)
      expect(insert.run(txHash(1), 'venue').changes).toBe(1)
    } finally {
      db.close()
    }
  })
})

describe('fill transaction hashes', () => {
  it('refuses a hash that is not 0x and 64 hex digits, and matches one given in capitals', () => {
    const { journal } = context
    recordSampleOrder(journal, 'h1')
    expect(() => journal.recordFill(fill('h1', 1, { txHash: '0x1234' }))).toThrow(JournalValueError)
    expect(() => journal.appendOrderEvents([fill('h1', 1, { txHash: `0x${'g'.repeat(64)}` })])).toThrow(JournalValueError)
    expect(journal.recordFill(fill('h1', 2, { txHash: `0x${'AB'.repeat(32)}` }))).toBe(true)
    expect(journal.recordFill(venueFill('h1', 2, { txHash: `0x${'ab'.repeat(32)}` }))).toBe(false)
    expect(journal.fillsOf('h1')).toMatchObject([{ txHash: `0x${'ab'.repeat(32)}`, source: 'both' }])
  })
})

describe('closeUnsentOrder', () => {
  it('gives an order that never reached the venue its final status and fails its intent, together', () => {
    const { journal } = context
    const id = recordSampleOrder(journal, 'unsent')
    expect(journal.closeUnsentOrder({ orderId: id, status: 'EXPIRED', reason: 'deadline too close to send', stage: 'venue' })).toBe(true)
    expect(journal.getOrder({ id })?.status).toBe('EXPIRED')
    expect(journal.getIntent('intent-unsent')).toMatchObject({ status: 'failed', refusalReason: 'deadline too close to send' })
  })

  it('fails neither when the status cannot be written: no final order under a failed intent, nor the reverse', () => {
    const { journal } = context
    const id = recordSampleOrder(journal, 'unsent')
    // `mined` is a Market status: refused for a Delta order after the intent's failure was written in the same step.
    expect(() => journal.closeUnsentOrder({ orderId: id, status: 'mined', reason: 'refused', stage: 'venue' })).toThrow(
      JournalConflictError,
    )
    expect(journal.getIntent('intent-unsent')?.status).toBe('accepted')
    expect(journal.getOrder({ id })?.status).not.toBe('mined')
  })

  it('refuses an order the journal does not hold', () => {
    expect(() => context.journal.closeUnsentOrder({ orderId: 'nowhere', status: 'FAILED', reason: 'x', stage: 'venue' })).toThrow(
      JournalRecordNotFoundError,
    )
  })
})

describe('the chains of an order’s fills and statuses', () => {
  it('are read by seeking each row, never by scanning the table: the cost of a read stays that of the order’s own rows', () => {
    const { journal } = context
    recordSampleOrder(journal, 'a')
    journal.close()
    const db = new BetterSqlite3(context.file, { readonly: true })
    try {
      for (const sql of [
        chainSql('fills', 'fills_head', { orderBy: 'id' }),
        chainSql('order_status_history', 'history_head', { orderBy: 'seq' }),
        chainSql('fills', 'fills_head', { columns: 'spent_amount' }),
      ]) {
        const plan = db
          .prepare(`EXPLAIN QUERY PLAN ${sql}`)
          .all('a')
          .map((row) => (row as { detail: string }).detail)
        expect(plan.filter((step) => /^SCAN (fills|order_status_history)\b/.test(step))).toEqual([])
        expect(plan.some((step) => /^SEARCH (fills|order_status_history) USING INTEGER PRIMARY KEY/.test(step))).toBe(true)
      }
    } finally {
      db.close()
    }
    context.journal = openJournal({ file: context.file, clock: context.clock })
  })

  it('give an order its own fills, with many orders’ fills journaled', () => {
    const { journal } = context
    for (const id of ['a', 'b', 'c']) recordSampleOrder(journal, id)
    for (let n = 1; n <= 30; n++) journal.recordFill(fill(['a', 'b', 'c'][n % 3] as string, n))
    expect(journal.fillsOf('b').map((row) => row.txHash)).toEqual([1, 4, 7, 10, 13, 16, 19, 22, 25, 28].map(txHash))
    const third = journal.fillsOf('b')[2]?.id ?? 0
    expect(journal.fillsOf('b', third).map((row) => row.txHash)).toEqual([10, 13, 16, 19, 22, 25, 28].map(txHash))
  })
})
