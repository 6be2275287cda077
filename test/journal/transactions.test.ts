import BetterSqlite3 from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import { openJournal } from '../../src/journal/journal.js'
import { JournalRecordNotFoundError } from '../../src/journal/journal-errors.js'
import { pendingTransactionsSql, type RecordTransactionParameters } from '../../src/journal/transactions.js'
import { recordSampleOrder } from './journal-fixtures.js'
import { txHash, useJournal } from './use-journal.js'

const context = useJournal()
const sender = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'
const receipt = { blockNumber: 12, gasUsed: 150_000n, effectiveGasPrice: 3_000_000_000n } as const

function sent(n: number, overrides: Partial<RecordTransactionParameters> = {}): RecordTransactionParameters {
  return {
    txHash: txHash(n),
    purpose: 'swap',
    chainId: 1,
    nonce: n,
    from: sender,
    to: '0xBB',
    value: 0n,
    dataHash: txHash(1000 + n),
    ...overrides,
  }
}

describe('updateTransaction', () => {
  it('records the receipt and makes the swap’s order mined in the same step', () => {
    const { journal, clock } = context
    recordSampleOrder(journal, 'm1', { mode: 'market' })
    journal.recordTransaction(sent(1, { orderId: 'm1' }))
    clock.advance(100)
    const mined = journal.updateTransaction({ txHash: txHash(1).toUpperCase().replace('0X', '0x'), status: 'mined', ...receipt })
    expect(mined).toMatchObject({
      status: 'mined',
      revertReason: null,
      gasUsed: 150_000n,
      effectiveGasPrice: 3_000_000_000n,
      blockNumber: 12,
    })
    expect(mined.updatedAt).toBe(1_700_000_000_100)
    expect(journal.orderHistory('m1').map((change) => change.status)).toEqual(['SIGNED', 'mined'])
    expect(journal.getOrder({ id: 'm1' })?.status).toBe('mined')
  })

  it('leaves the order alone when the transaction is an approval', () => {
    const { journal } = context
    recordSampleOrder(journal, 'm2', { mode: 'market' })
    journal.recordTransaction(sent(2, { orderId: 'm2', purpose: 'approve' }))
    journal.updateTransaction({ txHash: txHash(2), status: 'reverted', revertReason: 'not allowed', ...receipt })
    expect(journal.getTransaction(txHash(2))).toMatchObject({ status: 'reverted', revertReason: 'not allowed', purpose: 'approve' })
    expect(journal.getOrder({ id: 'm2' })?.status).toBe('SIGNED')
    expect(journal.orderHistory('m2')).toHaveLength(1)
  })

  it('refuses a transaction never recorded', () => {
    expect(() => context.journal.updateTransaction({ txHash: txHash(3), status: 'mined', ...receipt })).toThrow(JournalRecordNotFoundError)
  })
})

describe('recordTransaction', () => {
  it('refuses a transaction for an order never recorded', () => {
    expect(() => context.journal.recordTransaction(sent(4, { orderId: 'ghost' }))).toThrow(JournalRecordNotFoundError)
  })
})

describe('dropTransaction', () => {
  it('marks a sent swap dropped with its reason and drops its order once', () => {
    const { journal } = context
    recordSampleOrder(journal, 'm3', { mode: 'market' })
    journal.recordTransaction(sent(5, { orderId: 'm3' }))
    const dropped = journal.dropTransaction({ txHash: txHash(5), reason: 'nonce 5 taken by another transaction' })
    journal.dropTransaction({ txHash: txHash(5), reason: 'again' })
    expect(dropped).toMatchObject({ status: 'dropped', revertReason: 'nonce 5 taken by another transaction', gasUsed: null })
    expect(journal.orderHistory('m3')).toMatchObject([
      { status: 'SIGNED' },
      { status: 'dropped', reason: 'nonce 5 taken by another transaction' },
    ])
    expect(journal.openOrders()).toEqual([])
  })

  it('keeps a mined transaction mined', () => {
    const { journal } = context
    journal.recordTransaction(sent(6))
    journal.updateTransaction({ txHash: txHash(6), status: 'mined', ...receipt })
    expect(journal.dropTransaction({ txHash: txHash(6), reason: 'late' })).toMatchObject({ status: 'mined', revertReason: null })
  })

  it('changes no order when an approval is dropped', () => {
    const { journal } = context
    recordSampleOrder(journal, 'm4', { mode: 'market' })
    journal.recordTransaction(sent(7, { orderId: 'm4', purpose: 'approve' }))
    journal.dropTransaction({ txHash: txHash(7), reason: 'replaced' })
    expect(journal.getOrder({ id: 'm4' })?.status).toBe('SIGNED')
  })

  it('refuses a transaction never recorded', () => {
    expect(() => context.journal.dropTransaction({ txHash: txHash(8), reason: 'x' })).toThrow(JournalRecordNotFoundError)
  })
})

describe('transaction queries', () => {
  it('lists a sender’s transactions on one chain by nonce, an order’s by send time, and the pending ones', () => {
    const { journal, clock } = context
    recordSampleOrder(journal, 'm5', { mode: 'market' })
    journal.recordTransaction(sent(12, { orderId: 'm5' }))
    clock.advance(1)
    journal.recordTransaction(sent(11, { orderId: 'm5', purpose: 'approve' }))
    journal.recordTransaction(sent(10, { purpose: 'wrap' }))
    journal.recordTransaction(sent(9, { chainId: 8453 }))
    journal.recordTransaction(sent(13, { from: '0x01' }))
    journal.updateTransaction({ txHash: txHash(10), status: 'mined', ...receipt })

    expect(journal.transactionsFrom(sender.toUpperCase().replace('0X', '0x'), 1).map((transaction) => transaction.nonce)).toEqual([
      10, 11, 12,
    ])
    expect(journal.transactionsFrom(sender, 8453).map((transaction) => transaction.txHash)).toEqual([txHash(9)])
    expect(journal.transactionsOf('m5').map((transaction) => transaction.purpose)).toEqual(['swap', 'approve'])
    expect(journal.transactionsOf('none')).toEqual([])
    expect(journal.pendingTransactions().map((transaction) => [transaction.chainId, transaction.nonce])).toEqual([
      [1, 11],
      [1, 12],
      [1, 13],
      [8453, 9],
    ])
  })

  it('reads the pending ones from an index of those alone, in its order: a reconciliation pass does not scan every transaction', () => {
    const { journal } = context
    journal.recordTransaction(sent(1))
    journal.close()
    const db = new BetterSqlite3(context.file, { readonly: true })
    try {
      const plan = db
        .prepare(`EXPLAIN QUERY PLAN ${pendingTransactionsSql}`)
        .all()
        .map((row) => (row as { detail: string }).detail)
      expect(plan).toEqual(['SCAN transactions USING INDEX transactions_sent'])
    } finally {
      db.close()
    }
    context.journal = openJournal({ file: context.file, clock: context.clock })
  })
})
