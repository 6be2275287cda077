import BetterSqlite3 from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import { openJournal } from '../../src/journal/journal.js'
import { JournalRecordNotFoundError } from '../../src/journal/journal-errors.js'
import { recordSampleOrder } from './journal-fixtures.js'
import { useJournal } from './use-journal.js'

const context = useJournal()
const maxUint256 = 2n ** 256n - 1n
const hour = 3_600_000

describe('recordModeChoice', () => {
  it('keeps the first choice of an intent when a restart chooses again', () => {
    const { journal, clock } = context
    journal.recordIntent({ id: 'i1', strategy: 's', kind: 'swap', intent: {} })
    const first = journal.recordModeChoice({
      intentId: 'i1',
      mode: 'delta',
      reason: 'better-price',
      explanation: 'delta beats market by 12 bps',
      figures: { delta: maxUint256, market: 1n, advantageBps: 12 },
    })
    clock.advance(1_000)
    const again = journal.recordModeChoice({ intentId: 'i1', mode: 'market', reason: 'fallback', explanation: 'other', figures: {} })
    expect(again).toEqual(first)
    expect(journal.getModeChoice('i1')).toEqual({
      intentId: 'i1',
      mode: 'delta',
      reason: 'better-price',
      explanation: 'delta beats market by 12 bps',
      figures: { delta: maxUint256.toString(), market: '1', advantageBps: 12 },
      decidedAt: 1_700_000_000_000,
    })
  })

  it('stores no mode when neither mode could take the trade', () => {
    const { journal } = context
    journal.recordIntent({ id: 'i2', strategy: 's', kind: 'swap', intent: {} })
    journal.recordModeChoice({ intentId: 'i2', mode: undefined, reason: 'no-route', explanation: 'no quote', figures: null })
    expect(journal.getModeChoice('i2')).toMatchObject({ mode: null, reason: 'no-route', figures: null })
  })

  it('refuses a choice for an intent never recorded and has none to return', () => {
    const { journal } = context
    const choice = { intentId: 'ghost', mode: 'delta', reason: 'r', explanation: 'e', figures: {} } as const
    expect(() => journal.recordModeChoice(choice)).toThrow(JournalRecordNotFoundError)
    expect(journal.getModeChoice('ghost')).toBeUndefined()
  })
})

describe('recordIntent', () => {
  it('stores an intent refused at once with its limit and reason, and no spend', () => {
    const { journal } = context
    const refused = journal.recordIntent({
      id: 'r1',
      strategy: 's',
      kind: 'swap',
      intent: {},
      spend: { token: '1:0xabc', amount: 5n },
      refused: { limit: 'dailyBudget', reason: 'over the daily budget' },
    })
    expect(refused).toMatchObject({ status: 'refused', refusalLimit: 'dailyBudget', refusalReason: 'over the daily budget' })
    expect(refused.spend).toBeUndefined()
  })

  it('stores what an accepted intent commits, up to 2^256-1', () => {
    const { journal } = context
    const accepted = journal.recordIntent({
      id: 'a1',
      strategy: 's',
      kind: 'limit',
      intent: {},
      spend: { token: '1:0xabc', amount: maxUint256 },
    })
    expect(accepted).toMatchObject({
      status: 'accepted',
      refusalLimit: null,
      refusalReason: null,
      spend: { token: '1:0xabc', amount: maxUint256 },
    })
    expect(journal.getIntent('a1')).toEqual(accepted)
  })
})

describe('failIntent', () => {
  it('marks an accepted intent failed with its stage and keeps the first failure', () => {
    const { journal, clock } = context
    journal.recordIntent({ id: 'f1', strategy: 's', kind: 'swap', intent: {} })
    clock.advance(10)
    const failed = journal.failIntent('f1', 'order rejected: bad signature', 'venue')
    clock.advance(10)
    const again = journal.failIntent('f1', 'reverted', 'chain')
    expect(failed).toMatchObject({ status: 'failed', refusalLimit: 'venue', refusalReason: 'order rejected: bad signature' })
    expect(failed.updatedAt).toBe(1_700_000_000_010)
    expect(again).toEqual(failed)
  })

  it('leaves a done or refused intent as it is', () => {
    const { journal } = context
    journal.recordIntent({ id: 'd1', strategy: 's', kind: 'swap', intent: {} })
    journal.completeIntent('d1')
    journal.recordIntent({ id: 'r2', strategy: 's', kind: 'swap', intent: {}, refused: { limit: 'mode', reason: 'no mode' } })
    expect(journal.failIntent('d1', 'late', 'venue')).toMatchObject({ status: 'done', refusalReason: null })
    expect(journal.failIntent('r2', 'late', 'venue')).toMatchObject({ status: 'refused', refusalLimit: 'mode', refusalReason: 'no mode' })
  })

  it('refuses an intent never recorded', () => {
    expect(() => context.journal.failIntent('ghost', 'x', 'venue')).toThrow(JournalRecordNotFoundError)
  })
})

describe('intentsOf', () => {
  it('lists the intents of one strategy in the order they were recorded, whatever their status', () => {
    const { journal, clock } = context
    journal.recordIntent({ id: 'b', strategy: 'dca', kind: 'swap', intent: {} })
    clock.advance(1)
    journal.recordIntent({ id: 'a', strategy: 'dca', kind: 'swap', intent: {}, refused: { limit: 'maxSlippage', reason: 'slippage' } })
    clock.advance(1)
    journal.recordIntent({ id: 'c', strategy: 'grid', kind: 'limit', intent: {} })
    expect(journal.intentsOf('dca').map((intent) => [intent.id, intent.status])).toEqual([
      ['b', 'accepted'],
      ['a', 'refused'],
    ])
    expect(journal.intentsOf('none')).toEqual([])
  })
})

describe('riskUsage', () => {
  it('sums the spend per token and UTC day of accepted and done intents only', () => {
    const { journal, clock } = context
    const spend = (id: string, token: string, amount: bigint) =>
      journal.recordIntent({ id, strategy: 's', kind: 'swap', intent: {}, spend: { token, amount } })
    spend('day1-accepted', '1:0xusdc', 100n)
    spend('day1-done', '1:0xusdc', maxUint256 - 1000n)
    journal.completeIntent('day1-done')
    spend('day1-failed', '1:0xusdc', 7n)
    journal.failIntent('day1-failed', 'reverted', 'chain')
    spend('day1-refused-later', '1:0xusdc', 9n)
    journal.refuseIntent('day1-refused-later', 'over budget', 'dailyBudget')
    journal.recordIntent({
      id: 'refused',
      strategy: 's',
      kind: 'swap',
      intent: {},
      spend: { token: '1:0xusdc', amount: 11n },
      refused: { limit: 'x', reason: 'y' },
    })
    clock.advance(2 * hour)
    spend('day2', '1:0xusdc', 40n)
    spend('other-token', '8453:0xweth', 3n)

    expect(journal.riskUsage().tokens).toEqual({
      '1:0xusdc': { spentByUtcDay: { '2023-11-14': maxUint256 - 900n, '2023-11-15': 40n }, spentTotal: maxUint256 - 860n },
      '8453:0xweth': { spentByUtcDay: { '2023-11-15': 3n }, spentTotal: 3n },
    })
  })

  it('reads only the day asked for, with the totals of every day, when given the time of the check', () => {
    const { journal, clock } = context
    const spend = (id: string, amount: bigint) =>
      journal.recordIntent({ id, strategy: 's', kind: 'swap', intent: {}, spend: { token: '1:0xusdc', amount } })
    spend('day1', 100n)
    const dayOne = clock.now()
    clock.advance(2 * hour)
    spend('day2', 40n)

    expect(journal.riskUsage({ now: clock.now() }).tokens).toEqual({
      '1:0xusdc': { spentByUtcDay: { '2023-11-15': 40n }, spentTotal: 140n },
    })
    expect(journal.riskUsage({ now: dayOne }).tokens).toEqual({
      '1:0xusdc': { spentByUtcDay: { '2023-11-14': 100n }, spentTotal: 140n },
    })
  })

  it('counts open orders per strategy without those in a final status of their mode', () => {
    const { journal } = context
    const order = (id: string, mode: 'delta' | 'market' | 'otc', status: string | undefined, strategy: string) => {
      journal.recordIntent({ id: `intent-${id}`, strategy, kind: 'swap', intent: {} })
      recordSampleOrder(journal, id, { mode, intentId: `intent-${id}` })
      if (status !== undefined) journal.recordStatus({ orderId: id, status: status as 'PENDING' })
    }
    order('signed', 'delta', undefined, 'dca')
    order('cancelling', 'delta', 'CANCELLING', 'dca')
    order('otc-pending', 'otc', 'PENDING', 'dca')
    order('market-sent', 'market', 'sent', 'dca')
    order('delta-completed', 'delta', 'COMPLETED', 'dca')
    order('delta-cancelled', 'delta', 'CANCELLED', 'dca')
    order('otc-fulfilled', 'otc', 'FULFILLED', 'dca')
    order('otc-expired', 'otc', 'EXPIRED', 'dca')
    order('market-mined', 'market', 'mined', 'dca')
    order('market-dropped', 'market', 'dropped', 'dca')
    order('grid-active', 'delta', 'ACTIVE', 'grid')
    order('grid-refunded', 'delta', 'REFUNDED', 'grid')
    order('twap-done', 'delta', 'FAILED', 'twap')

    expect(journal.riskUsage({ strategies: ['dca', 'grid', 'idle'] }).openOrdersByStrategy).toEqual({ dca: 4, grid: 1, idle: 0 })
  })

  it('is empty on a new journal', () => {
    expect(context.journal.riskUsage()).toEqual({ tokens: {}, openOrdersByStrategy: {} })
  })
})

describe('recordBalanceBaseline', () => {
  it('keeps the first baseline of an account, token and chain, and lists an account’s baselines', () => {
    const { journal, clock } = context
    const account = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'
    const usdc = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48'
    const first = journal.recordBalanceBaseline({ chainId: 1, account, token: usdc, amount: maxUint256, blockNumber: 100 })
    clock.advance(5)
    const again = journal.recordBalanceBaseline({ chainId: 1, account: account.toLowerCase(), token: usdc, amount: 1n, blockNumber: 200 })
    journal.recordBalanceBaseline({
      chainId: 8453,
      account,
      token: '0x0000000000000000000000000000000000000000',
      amount: 0n,
      blockNumber: 7,
    })
    journal.recordBalanceBaseline({ chainId: 1, account: '0x01', token: usdc, amount: 5n, blockNumber: 1 })

    expect(again).toEqual(first)
    expect(first).toEqual({
      chainId: 1,
      account: account.toLowerCase(),
      token: usdc.toLowerCase(),
      amount: maxUint256,
      blockNumber: 100,
      recordedAt: 1_700_000_000_000,
    })
    expect(journal.balanceBaselinesOf(account).map((baseline) => [baseline.chainId, baseline.token, baseline.amount])).toEqual([
      [1, usdc.toLowerCase(), maxUint256],
      [8453, '0x0000000000000000000000000000000000000000', 0n],
    ])
    expect(journal.getBalanceBaseline(8453, account, usdc)).toBeUndefined()
  })

  it('says a baseline exists once one is recorded, by this journal or by another connection, in any address case', () => {
    const { journal, file, clock } = context
    const account = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'
    const usdc = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48'
    const weth = '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2'
    expect(journal.hasBalanceBaseline(1, account, usdc)).toBe(false)
    journal.recordBalanceBaseline({ chainId: 1, account, token: usdc, amount: 3n, blockNumber: 1 })
    expect(journal.hasBalanceBaseline(1, account.toLowerCase(), usdc.toLowerCase())).toBe(true)
    expect(journal.hasBalanceBaseline(10, account, usdc)).toBe(false)

    expect(journal.hasBalanceBaseline(1, account, weth)).toBe(false)
    const other = openJournal({ file, clock })
    try {
      other.recordBalanceBaseline({ chainId: 1, account, token: weth, amount: 4n, blockNumber: 2 })
    } finally {
      other.close()
    }
    expect(journal.hasBalanceBaseline(1, account, weth)).toBe(true)
    expect(journal.hasBalanceBaseline(1, '0x01', weth)).toBe(false)
  })
})

describe('recordSignedOrder account and beneficiary', () => {
  it('defaults the beneficiary to the account and stores both lowercase', () => {
    const { journal } = context
    recordSampleOrder(journal, 'own', { account: '0xAbCd000000000000000000000000000000000001' })
    recordSampleOrder(journal, 'gift', {
      account: '0xAbCd000000000000000000000000000000000001',
      beneficiary: '0xBEEF000000000000000000000000000000000002',
      destChainId: 8453,
    })
    expect(journal.getOrder({ id: 'own' })).toMatchObject({
      account: '0xabcd000000000000000000000000000000000001',
      beneficiary: '0xabcd000000000000000000000000000000000001',
      chainId: 1,
      destChainId: 1,
    })
    expect(journal.getOrder({ id: 'gift' })).toMatchObject({
      account: '0xabcd000000000000000000000000000000000001',
      beneficiary: '0xbeef000000000000000000000000000000000002',
      destChainId: 8453,
    })
  })
})

describe('spend totals migration', () => {
  it('gives a journal written before the totals existed the same risk usage once migrated', () => {
    const { journal, clock, file } = context
    const token = '1:0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48'
    journal.recordIntent({ id: 'a', strategy: 's', kind: 'swap', intent: {}, spend: { token, amount: maxUint256 / 4n } })
    clock.advance(3 * hour)
    journal.recordIntent({ id: 'b', strategy: 's', kind: 'swap', intent: {}, spend: { token, amount: 7n } })
    journal.recordIntent({ id: 'c', strategy: 's', kind: 'swap', intent: {}, spend: { token, amount: 5n } })
    journal.failIntent('c', 'the venue refused it', 'venue')
    recordSampleOrder(journal, 'open-order')
    recordSampleOrder(journal, 'closed-order')
    journal.recordStatus({ orderId: 'closed-order', status: 'COMPLETED' })
    const before = journal.riskUsage({ strategies: ['sample'] })
    expect(before.openOrdersByStrategy).toEqual({ sample: 1 })
    journal.close()
    const db = new BetterSqlite3(file)
    // Back to version 2, before migration 3 added the totals (and the later migrations with it).
    db.exec(
      'DROP INDEX transactions_sent; DROP INDEX orders_untold; ALTER TABLE orders DROP COLUMN untold; DROP TRIGGER console_events_of_status; DROP TRIGGER console_events_of_fill; DROP TRIGGER console_events_of_refund; DROP TRIGGER console_events_of_new_intent; DROP TRIGGER console_events_of_intent; DROP TABLE console_events; DROP TABLE operator_actions; DROP TABLE notification_cursors; DROP TABLE notifications; DROP INDEX intents_refused_or_failed; DROP TABLE firm_quote_fills; DROP TABLE firm_quotes; DROP TABLE order_deliveries; DROP TABLE spend_totals; DROP INDEX orders_open; ALTER TABLE orders DROP COLUMN strategy; ALTER TABLE orders DROP COLUMN open',
    )
    db.pragma('user_version = 2')
    db.close()
    context.journal = openJournal({ file, clock })
    expect(context.journal.riskUsage({ strategies: ['sample'] })).toEqual(before)
    expect(context.journal.openOrders().map((order) => order.id)).toEqual(['open-order'])
    expect(before.tokens[token]).toEqual({
      spentByUtcDay: { '2023-11-14': maxUint256 / 4n, '2023-11-15': 7n },
      spentTotal: maxUint256 / 4n + 7n,
    })
  })
})
