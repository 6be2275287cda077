import BetterSqlite3 from 'better-sqlite3'
import fc from 'fast-check'
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest'
import { type Journal, openJournal } from '../../src/journal/journal.js'
import { JournalConflictError, JournalRecordNotFoundError, JournalVersionError } from '../../src/journal/journal-errors.js'
import { journalMigrations, migrateJournal } from '../../src/journal/migrations.js'
import { amountColumn, readAmountText } from '../../src/journal/sql-values.js'
import { ManualClock } from '../../src/time/clock.js'
import { createJournalDirectory, recordSampleOrder } from './journal-fixtures.js'

const directory = createJournalDirectory()
afterAll(() => directory.cleanup())

let fileCount = 0
let journal: Journal
let clock: ManualClock

beforeEach(() => {
  clock = new ManualClock(1_700_000_000_000)
  journal = openJournal({ file: directory.path(`journal-${fileCount++}.sqlite`), clock })
})
afterEach(() => journal.close())

function countRows(table: string): number {
  const db = new BetterSqlite3(journal.file, { readonly: true })
  try {
    return db.prepare<[], number>(`SELECT count(*) FROM ${table}`).pluck().get() ?? 0
  } finally {
    db.close()
  }
}

const maxUint256 = 2n ** 256n - 1n
const txHash = (n: number) => `0x${n.toString(16).padStart(64, '0')}`

describe('openJournal', () => {
  it('creates every table and sets the schema version on an empty file', () => {
    const db = new BetterSqlite3(journal.file, { readonly: true })
    const tables = db.prepare<[], string>("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all()
    const version = db.pragma('user_version', { simple: true })
    const mode = db.pragma('journal_mode', { simple: true })
    db.close()
    expect(tables).toEqual([
      'approvals',
      'balance_baselines',
      'console_events',
      'fills',
      'firm_quote_fills',
      'firm_quotes',
      'intents',
      'mode_choices',
      'notification_cursors',
      'notifications',
      'operator_actions',
      'order_deliveries',
      'order_status_history',
      'orders',
      'refunds',
      'spend_totals',
      'strategy_state',
      'transactions',
    ])
    expect(version).toBe(journalMigrations.length)
    expect(mode).toBe('wal')
  })

  it('keeps the data and the version when a journal is reopened', () => {
    recordSampleOrder(journal, 'kept')
    journal.close()
    journal = openJournal({ file: journal.file, clock })
    expect(journal.getOrder({ id: 'kept' })?.srcAmount).toBe(1_000_000n)
    expect(journal.schemaVersion).toBe(journalMigrations.length)
  })

  it('refuses a database newer than the code, naming both versions', () => {
    journal.close()
    const db = new BetterSqlite3(journal.file)
    db.pragma(`user_version = ${journalMigrations.length + 3}`)
    db.close()
    const open = () => openJournal({ file: journal.file, clock })
    expect(open).toThrow(JournalVersionError)
    expect(open).toThrow(
      `schema version ${journalMigrations.length + 3}, newer than this deltaflow understands (${journalMigrations.length})`,
    )
  })
})

describe('intents', () => {
  it('stores one row when the same intent id is recorded twice and returns the first one', () => {
    const first = journal.recordIntent({ id: 'i1', strategy: 's', kind: 'twap-sell', intent: { total: maxUint256 } })
    clock.advance(10)
    const again = journal.recordIntent({ id: 'i1', strategy: 's', kind: 'twap-sell', intent: { total: 1n } })
    expect(again).toEqual(first)
    expect(again.intent).toEqual({ total: maxUint256.toString() })
    expect(countRows('intents')).toBe(1)
  })

  it('keeps the first refusal reason when an intent is refused twice', () => {
    journal.recordIntent({ id: 'i2', strategy: 's', kind: 'swap', intent: {} })
    journal.refuseIntent('i2', 'over budget')
    const again = journal.refuseIntent('i2', 'other')
    expect(again).toMatchObject({ status: 'refused', refusalReason: 'over budget' })
  })

  it('records the mode choice given with an intent, and keeps the first choice when the intent is recorded again', () => {
    const choice = (mode: 'delta' | 'market') => ({ mode, reason: 'preference', explanation: `${mode} wins`, figures: { net: 5n } })
    journal.recordIntent({ id: 'i3', strategy: 's', kind: 'swap', intent: {}, modeChoice: choice('delta') })
    journal.recordIntent({ id: 'i3', strategy: 's', kind: 'swap', intent: {}, modeChoice: choice('market') })
    expect(journal.getModeChoice('i3')).toMatchObject({ intentId: 'i3', mode: 'delta', explanation: 'delta wins', figures: { net: '5' } })
    expect(countRows('mode_choices')).toBe(1)
  })
})

describe('readAmountText', () => {
  it('reads an amount column as amountColumn does, and refuses what it refuses with its error', () => {
    const outcome = (read: () => bigint) => {
      try {
        return { amount: read() }
      } catch (error) {
        return { error: String(error) }
      }
    }
    const text = fc.oneof(
      fc.bigInt({ min: 0n, max: maxUint256 }).map(String),
      fc.stringMatching(/^[0-9 +\-.e]{0,8}$/),
      fc.constantFrom('', '-1', '1.0', ' 1', '0x10', '١٢'),
    )
    fc.assert(
      fc.property(fc.oneof(text, fc.anything()), (value) => {
        expect(outcome(() => readAmountText(value))).toEqual(outcome(() => amountColumn.parse(value)))
      }),
    )
  })
})

describe('what a write returns', () => {
  it('is from recordIntent and each status change exactly the intent getIntent reads back', () => {
    const spend = { token: '1:0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48', amount: maxUint256 }
    const recorded = [
      journal.recordIntent({ id: 'accepted', strategy: 's', kind: 'swap', intent: { amount: 5n, nested: [{ at: 1 }] }, spend }),
      journal.recordIntent({ id: 'plain', strategy: 's', kind: 'cancel', intent: { orderIds: ['o'] } }),
      journal.recordIntent({
        id: 'refused',
        strategy: 's',
        kind: 'swap',
        intent: {},
        spend,
        refused: { limit: 'dailyBudget', reason: 'r' },
      }),
      journal.recordIntent({ id: 'failed', strategy: 's', kind: 'otc', intent: {}, failed: { stage: 'pricing', reason: 'f' } }),
    ]
    for (const intent of recorded) expect(intent).toStrictEqual(journal.getIntent(intent.id))
    clock.advance(7)
    journal.recordIntent({ id: 'to-refuse', strategy: 's', kind: 'swap', intent: {}, spend })
    journal.recordIntent({ id: 'to-fail', strategy: 's', kind: 'swap', intent: {}, spend })
    clock.advance(7)
    const changed = [
      journal.refuseIntent('to-refuse', 'too late', 'mode'),
      journal.failIntent('to-fail', 'venue said no', 'venue'),
      journal.completeIntent('accepted'),
      journal.completeIntent('accepted'),
      journal.refuseIntent('refused', 'again'),
    ]
    for (const intent of changed) expect(intent).toStrictEqual(journal.getIntent(intent.id))
    expect(changed[0]).toMatchObject({ status: 'refused', refusalLimit: 'mode', updatedAt: 1_700_000_000_014 })
  })

  it('is from recordSignedOrder and markSubmitted exactly the order getOrder reads back', () => {
    journal.recordIntent({ id: 'intent-full', strategy: 's', kind: 'swap', intent: {} })
    const full = journal.recordSignedOrder({
      id: 'full',
      intentId: 'intent-full',
      mode: 'delta',
      account: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
      beneficiary: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
      chainId: 1,
      destChainId: 10,
      orderHash: `0x${'CD'.repeat(32)}`,
      nonce: maxUint256,
      deadline: 1_800_000_000,
      srcToken: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48',
      destToken: '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2',
      srcAmount: maxUint256,
      destAmount: 0n,
      side: 'BUY',
      signedPayload: { order: { amount: 5n, list: [1, 'a', null], omitted: undefined }, signature: '0xabc' },
    })
    journal.recordIntent({ id: 'intent-bare', strategy: 's', kind: 'swap', intent: {} })
    const bare = journal.recordSignedOrder({
      id: 'bare',
      intentId: 'intent-bare',
      mode: 'market',
      account: '0xAA',
      chainId: 1,
      srcToken: '0x1',
      destToken: '0x2',
      srcAmount: 1n,
      destAmount: 1n,
      side: 'SELL',
      signedPayload: 'raw',
    })
    for (const order of [full, bare]) expect(order).toStrictEqual(journal.getOrder({ id: order.id }))
    const submit = (id: string, venueId?: string) => {
      const order = journal.markSubmitted(id, venueId === undefined ? {} : { venueId })
      expect(order).toStrictEqual(journal.getOrder({ id }))
      return order
    }
    clock.advance(5)
    submit('full', 'v-full')
    submit('bare')
    clock.advance(5)
    expect(submit('bare', 'v-bare')).toMatchObject({ venueId: 'v-bare', submittedAt: 1_700_000_000_005, updatedAt: 1_700_000_000_010 })
    expect(submit('full', 'v-full')).toMatchObject({ submittedAt: 1_700_000_000_005, updatedAt: 1_700_000_000_005 })
  })

  it('is the stored order, unchanged, when an order is recorded again under its id with another hash', () => {
    recordSampleOrder(journal, 'kept', { orderHash: txHash(11) })
    const stored = journal.getOrder({ id: 'kept' })
    clock.advance(10)
    const again = journal.recordSignedOrder({
      id: 'kept',
      intentId: 'intent-kept',
      mode: 'delta',
      account: '0xbb',
      chainId: 1,
      orderHash: txHash(12),
      srcToken: '0x1',
      destToken: '0x2',
      srcAmount: 9n,
      destAmount: 9n,
      side: 'SELL',
      signedPayload: {},
    })
    expect(again).toStrictEqual(stored)
    expect(journal.getOrder({ orderHash: txHash(12) })).toBeUndefined()
  })
})

describe('orders', () => {
  it('stores one order and one SIGNED history row when the signed order is recorded twice', () => {
    recordSampleOrder(journal, 'o1')
    recordSampleOrder(journal, 'o1')
    expect(countRows('orders')).toBe(1)
    expect(journal.orderHistory('o1').map((change) => change.status)).toEqual(['SIGNED'])
  })

  it('round-trips amounts and nonce of 2^256-1 as bigint', () => {
    recordSampleOrder(journal, 'big', { srcAmount: maxUint256, destAmount: maxUint256, nonce: maxUint256 })
    expect(journal.getOrder({ id: 'big' })).toMatchObject({ srcAmount: maxUint256, destAmount: maxUint256, nonce: maxUint256 })
  })

  it('stores addresses and hashes lowercase and finds the order by hash and by venue id', () => {
    recordSampleOrder(journal, 'o2', { orderHash: `0x${'AB'.repeat(32)}` })
    journal.markSubmitted('o2', { venueId: 'venue-uuid-2' })
    expect(journal.getOrder({ orderHash: `0x${'ab'.repeat(32)}` })?.id).toBe('o2')
    expect(journal.getOrder({ venueId: 'venue-uuid-2' })).toMatchObject({
      id: 'o2',
      srcToken: '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48',
    })
  })

  it('refuses a signed order whose intent was never recorded', () => {
    const order = {
      id: 'orphan',
      intentId: 'ghost',
      mode: 'delta',
      account: '0xaa',
      chainId: 1,
      srcToken: '0x1',
      destToken: '0x2',
    } as const
    const amounts = { srcAmount: 1n, destAmount: 1n, side: 'SELL', signedPayload: {} } as const
    expect(() => journal.recordSignedOrder({ ...order, ...amounts })).toThrow(JournalRecordNotFoundError)
  })

  it('refuses the same order hash under another local id', () => {
    recordSampleOrder(journal, 'o3', { orderHash: txHash(3) })
    expect(() => recordSampleOrder(journal, 'o4', { orderHash: txHash(3) })).toThrow(JournalConflictError)
  })

  it('lists a signed order as in flight until it is marked submitted', () => {
    recordSampleOrder(journal, 'o5')
    expect(journal.inFlightOrders().map((order) => order.id)).toEqual(['o5'])
    clock.advance(5)
    journal.markSubmitted('o5', { venueId: 'v5' })
    clock.advance(5)
    const again = journal.markSubmitted('o5', { venueId: 'v5' })
    expect(journal.inFlightOrders()).toEqual([])
    expect(again).toMatchObject({ submitted: true, venueId: 'v5', submittedAt: 1_700_000_000_005 })
  })

  it('refuses to mark an order submitted under a second venue id', () => {
    recordSampleOrder(journal, 'o6')
    journal.markSubmitted('o6', { venueId: 'v6' })
    expect(() => journal.markSubmitted('o6', { venueId: 'other' })).toThrow(JournalConflictError)
  })

  it('lists open orders without those in a final status of their mode', () => {
    recordSampleOrder(journal, 'delta-done')
    journal.recordStatus({ orderId: 'delta-done', status: 'COMPLETED' })
    recordSampleOrder(journal, 'delta-open')
    journal.recordStatus({ orderId: 'delta-open', status: 'ACTIVE' })
    recordSampleOrder(journal, 'otc-done', { mode: 'otc' })
    journal.recordStatus({ orderId: 'otc-done', status: 'FULFILLED' })
    recordSampleOrder(journal, 'market-sent', { mode: 'market' })
    journal.recordStatus({ orderId: 'market-sent', status: 'sent' })
    expect(journal.openOrders().map((order) => order.id)).toEqual(['delta-open', 'market-sent'])
  })

  it('counts what the open orders of a mode can still pull of a token: source amounts less their fills', () => {
    const usdc = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48'
    const fill = (orderId: string, n: number, spentAmount: bigint) =>
      journal.recordFill({ orderId, chainId: 1, txHash: txHash(n), logIndex: 0, spentAmount, receivedAmount: 1n, source: 'chain' })
    recordSampleOrder(journal, 'unfilled', { srcAmount: maxUint256 - 10n })
    recordSampleOrder(journal, 'partly', { srcAmount: 100n })
    fill('partly', 1, 30n)
    fill('partly', 2, 20n)
    recordSampleOrder(journal, 'overfilled', { srcAmount: 100n })
    fill('overfilled', 3, 150n)
    recordSampleOrder(journal, 'done', { srcAmount: 1_000n })
    journal.recordStatus({ orderId: 'done', status: 'COMPLETED' })
    recordSampleOrder(journal, 'other-token', { srcToken: '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2' })
    recordSampleOrder(journal, 'other-chain', { chainId: 10 })
    recordSampleOrder(journal, 'market', { mode: 'market' })

    expect(journal.outstandingSourceAmount({ mode: 'delta', chainId: 1, token: usdc })).toBe(maxUint256 - 10n + 50n)
    expect(journal.outstandingSourceAmount({ mode: 'delta', chainId: 1, token: usdc.toLowerCase() })).toBe(maxUint256 - 10n + 50n)
    expect(journal.outstandingSourceAmount({ mode: 'market', chainId: 1, token: usdc })).toBe(1_000_000n)
    expect(journal.outstandingSourceAmount({ mode: 'delta', chainId: 5, token: usdc })).toBe(0n)
  })

  it('filters the order list by status, strategy, mode and limit', () => {
    recordSampleOrder(journal, 'a')
    recordSampleOrder(journal, 'b', { mode: 'otc' })
    recordSampleOrder(journal, 'c')
    journal.recordStatus({ orderId: 'c', status: 'PENDING' })
    expect(journal.listOrders({ mode: 'delta' }).map((order) => order.id)).toEqual(['a', 'c'])
    expect(journal.listOrders({ status: 'PENDING' }).map((order) => order.id)).toEqual(['c'])
    expect(journal.listOrders({ strategy: 'sample', limit: 2 }).map((order) => order.id)).toEqual(['a', 'b'])
    expect(journal.listOrders({ strategy: 'none' })).toEqual([])
  })
})

describe('recordStatus', () => {
  it('appends one history row when the same status is recorded twice in a row', () => {
    recordSampleOrder(journal, 's1')
    expect(journal.recordStatus({ orderId: 's1', status: 'PENDING' })).toBe(true)
    expect(journal.recordStatus({ orderId: 's1', status: 'PENDING', reason: 'poll' })).toBe(false)
    journal.recordStatus({ orderId: 's1', status: 'ACTIVE' })
    journal.recordStatus({ orderId: 's1', status: 'PENDING' })
    expect(journal.orderHistory('s1').map((change) => change.status)).toEqual(['SIGNED', 'PENDING', 'ACTIVE', 'PENDING'])
  })

  it('refuses a status of another mode', () => {
    recordSampleOrder(journal, 's2')
    expect(() => journal.recordStatus({ orderId: 's2', status: 'mined' })).toThrow(JournalConflictError)
    expect(journal.getOrder({ id: 's2' })?.status).toBe('SIGNED')
  })

  it('refuses a status for an order never recorded', () => {
    expect(() => journal.recordStatus({ orderId: 'ghost', status: 'PENDING' })).toThrow(JournalRecordNotFoundError)
  })
})

describe('recordFill', () => {
  it('stores one fill when the same tx hash and log index are recorded twice', () => {
    recordSampleOrder(journal, 'f1')
    const fill = {
      orderId: 'f1',
      chainId: 1,
      txHash: txHash(1),
      logIndex: 4,
      spentAmount: maxUint256,
      receivedAmount: 7n,
      source: 'chain',
    } as const
    expect(journal.recordFill(fill)).toBe(true)
    expect(journal.recordFill(fill)).toBe(false)
    expect(journal.fillsOf('f1')).toMatchObject([{ txHash: txHash(1), logIndex: 4, spentAmount: maxUint256, receivedAmount: 7n }])
  })

  it('stores two fills of one transaction at different log indexes', () => {
    recordSampleOrder(journal, 'f2')
    const fill = { orderId: 'f2', chainId: 1, txHash: txHash(2), spentAmount: 1n, receivedAmount: 1n, source: 'chain' } as const
    journal.recordFill({ ...fill, logIndex: 1 })
    journal.recordFill({ ...fill, logIndex: 2 })
    expect(journal.fillsOf('f2')).toHaveLength(2)
  })

  it('merges the venue view and the chain log of one fill into one row', () => {
    recordSampleOrder(journal, 'f3')
    const fill = { orderId: 'f3', chainId: 1, txHash: txHash(3), spentAmount: 5n, receivedAmount: 6n } as const
    journal.recordFill({ ...fill, source: 'venue' })
    journal.recordFill({ ...fill, source: 'venue' })
    journal.recordFill({ ...fill, source: 'chain', logIndex: 9, blockNumber: 100 })
    expect(journal.fillsOf('f3')).toMatchObject([{ source: 'both', logIndex: 9, blockNumber: 100 }])
  })

  it('refuses a fill for an order never recorded', () => {
    const fill = {
      orderId: 'ghost',
      chainId: 1,
      txHash: txHash(4),
      logIndex: 0,
      spentAmount: 1n,
      receivedAmount: 1n,
      source: 'chain',
    } as const
    expect(() => journal.recordFill(fill)).toThrow(JournalRecordNotFoundError)
  })
})

describe('appendOrderEvents', () => {
  it('writes none of the batch when one event fails', () => {
    recordSampleOrder(journal, 'e1')
    const events = [
      { type: 'status', orderId: 'e1', status: 'PENDING' },
      { type: 'status', orderId: 'ghost', status: 'PENDING' },
    ] as const
    expect(() => journal.appendOrderEvents(events)).toThrow(JournalRecordNotFoundError)
    expect(journal.getOrder({ id: 'e1' })?.status).toBe('SIGNED')
  })

  it('counts only the events that changed something', () => {
    recordSampleOrder(journal, 'e2')
    const fill = {
      type: 'fill',
      orderId: 'e2',
      chainId: 1,
      txHash: txHash(5),
      logIndex: 0,
      spentAmount: 1n,
      receivedAmount: 1n,
      source: 'chain',
    } as const
    const status = { type: 'status', orderId: 'e2', status: 'ACTIVE' } as const
    expect(journal.appendOrderEvents([status, fill, status, fill])).toBe(2)
  })
})

describe('recordRefund', () => {
  it('stores one refund when the same tx hash is recorded twice', () => {
    recordSampleOrder(journal, 'r1')
    const refund = {
      orderId: 'r1',
      txHash: txHash(6),
      chainId: 8453,
      token: '0xABC0000000000000000000000000000000000001',
      amount: maxUint256,
    }
    expect(journal.recordRefund(refund)).toBe(true)
    expect(journal.recordRefund(refund)).toBe(false)
    expect(journal.refundsOf('r1')).toMatchObject([{ amount: maxUint256, token: '0xabc0000000000000000000000000000000000001' }])
  })
})

describe('recordApproval', () => {
  it('stores one row per approval transaction and per permit when each is recorded twice', () => {
    const common = { chainId: 1, owner: '0x01', token: '0x02', spender: '0x03', amount: maxUint256 }
    journal.recordApproval({ ...common, mode: 'approve', txHash: txHash(7) })
    journal.recordApproval({ ...common, mode: 'approve', txHash: txHash(7) })
    journal.recordApproval({ ...common, mode: 'permit', permitKind: 'eip2612', permitHash: txHash(8) })
    const permit = journal.recordApproval({ ...common, mode: 'permit', permitKind: 'eip2612', permitHash: txHash(8) })
    expect(countRows('approvals')).toBe(2)
    expect(permit).toMatchObject({ mode: 'permit', permitKind: 'eip2612', amount: maxUint256 })
  })
})

describe('transactions', () => {
  const sent = {
    txHash: txHash(9),
    purpose: 'swap' as const,
    chainId: 1,
    nonce: 3,
    from: '0xAA',
    to: '0xBB',
    value: maxUint256,
    dataHash: txHash(10),
  }

  it('stores one row when the same transaction is recorded twice', () => {
    journal.recordTransaction(sent)
    journal.recordTransaction(sent)
    expect(countRows('transactions')).toBe(1)
    expect(journal.getTransaction(sent.txHash)).toMatchObject({ status: 'sent', value: maxUint256, from: '0xaa' })
  })

  it('records a revert on the transaction and on its order in one step', () => {
    recordSampleOrder(journal, 'm1', { mode: 'market' })
    journal.recordTransaction({ ...sent, orderId: 'm1' })
    const receipt = { txHash: sent.txHash, blockNumber: 12, gasUsed: 21_000n, effectiveGasPrice: maxUint256 } as const
    journal.updateTransaction({ ...receipt, status: 'reverted', revertReason: 'INSUFFICIENT_OUTPUT' })
    journal.updateTransaction({ ...receipt, status: 'reverted', revertReason: 'INSUFFICIENT_OUTPUT' })
    expect(journal.getTransaction(sent.txHash)).toMatchObject({ status: 'reverted', effectiveGasPrice: maxUint256 })
    expect(journal.orderHistory('m1')).toMatchObject([{ status: 'SIGNED' }, { status: 'reverted', reason: 'INSUFFICIENT_OUTPUT' }])
    expect(journal.openOrders()).toEqual([])
  })
})

describe('strategy state', () => {
  it('returns the last value set and nothing after delete', () => {
    journal.setStrategyState('dca', 'next', { at: 1, amount: maxUint256 })
    journal.setStrategyState('dca', 'next', { at: 2 })
    expect(journal.getStrategyState('dca', 'next')).toEqual({ at: 2 })
    expect(journal.deleteStrategyState('dca', 'next')).toBe(true)
    expect(journal.getStrategyState('dca', 'next')).toBeUndefined()
  })
})

describe('console event sequence, rebuilt with comparisons for its kinds', () => {
  it('keeps a journal’s console events and their ids, refuses an unknown kind, and appends after them', () => {
    journal.close()
    const file = directory.path(`journal-${fileCount++}-before-console-checks.sqlite`)
    const before = new BetterSqlite3(file)
    const rebuild = journalMigrations.findIndex((migration) => String(migration).includes('CREATE TABLE console_events_v2'))
    expect(rebuild).toBeGreaterThan(0)
    migrateJournal(before, file, journalMigrations.slice(0, rebuild))
    const inListChecks = (db: BetterSqlite3.Database) =>
      db.prepare<[], string>("SELECT sql FROM sqlite_master WHERE name = 'console_events'").pluck().get()?.includes(' IN (')
    expect(inListChecks(before)).toBe(true)
    before.exec(
      `INSERT INTO intents (id, strategy, kind, intent_json, status, created_at, updated_at) VALUES ('i', 's', 'swap', '{}', 'accepted', 1, 1);
       INSERT INTO orders (id, intent_id, mode, account, beneficiary, chain_id, dest_chain_id, src_token, dest_token, src_amount,
         dest_amount, side, status, status_seq, signed_payload, created_at, updated_at)
       VALUES ('o', 'i', 'delta', '0x1', '0x1', 1, 1, '0x2', '0x3', '1', '1', 'SELL', 'SIGNED', 0, '{}', 2, 2);
       INSERT INTO order_status_history (order_id, seq, status, reason, at) VALUES ('o', 0, 'SIGNED', NULL, 2);
       INSERT INTO fills (order_id, chain_id, tx_hash, log_index, spent_amount, received_amount, source, recorded_at)
         VALUES ('o', 1, '${txHash(1)}', 0, '5', '6', 'chain', 3);
       INSERT INTO console_events (kind, subject, detail, at) VALUES ('strategy', 's', '{"event":"paused"}', 4);`,
    )
    const events = before.prepare<[], { id: number; kind: string }>('SELECT id, kind FROM console_events ORDER BY id').all()
    before.close()
    expect(events.map((event) => event.kind)).toEqual(['intent', 'order-status', 'fill', 'strategy'])

    journal = openJournal({ file, clock })
    expect(journal.schemaVersion).toBe(journalMigrations.length)
    const read = () => journal.consoleEventsAfter({ after: 0, upTo: Number.MAX_SAFE_INTEGER, limit: 100 })
    expect(read().map((event) => ({ id: event.id, kind: event.kind }))).toEqual(events)
    expect(read()[2]).toMatchObject({ fillId: 1, txHash: txHash(1), orderId: 'o' })

    // The triggers append to the new table, after the kept ids.
    journal.recordFill({ orderId: 'o', chainId: 1, txHash: txHash(2), logIndex: 0, spentAmount: 1n, receivedAmount: 1n, source: 'chain' })
    expect(read().slice(events.length)).toMatchObject([{ id: (events.at(-1)?.id ?? 0) + 1, kind: 'fill', txHash: txHash(2) }])
    expect(journal.lastConsoleEventId()).toBe((events.at(-1)?.id ?? 0) + 1)
    journal.recordIntent({ id: 'after', strategy: 's', kind: 'swap', intent: {} })
    journal.recordStrategyEvent('s', { event: 'resumed' })
    expect(read().slice(events.length + 1)).toMatchObject([
      { kind: 'intent', subject: 'after', intentStrategy: 's' },
      { kind: 'strategy', subject: 's' },
    ])
    expect(journal.checkIntegrity()).toBe('ok')

    const db = new BetterSqlite3(file)
    try {
      expect(inListChecks(db)).toBe(false)
      expect(() => db.prepare("INSERT INTO console_events (kind, at) VALUES ('order-state', 5)").run()).toThrow('CHECK constraint failed')
      expect(db.prepare<[], string>("SELECT name FROM sqlite_master WHERE type = 'trigger' ORDER BY name").pluck().all()).toEqual([
        'console_events_of_fill',
        'console_events_of_intent',
        'console_events_of_new_intent',
        'console_events_of_refund',
        'console_events_of_status',
      ])
    } finally {
      db.close()
    }
  })
})
