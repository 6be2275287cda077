import { readFileSync } from 'node:fs'
import BetterSqlite3 from 'better-sqlite3'
import fc from 'fast-check'
import type { Address } from 'viem'
import { afterAll, describe, expect, it } from 'vitest'
import { parseConfig } from '../../src/config/load-config.js'
import type { Intent } from '../../src/domain/intents/intent-schema.js'
import type { OrderStatus } from '../../src/domain/order-status.js'
import type { IntentResult } from '../../src/domain/order-views.js'
import { type Quote, quoteRequestKey } from '../../src/feed/quote.js'
import { decimalsFromTokenList } from '../../src/feed/token-decimals.js'
import type { FillView, OrderView } from '../../src/index.js'
import { type Journal, openJournal } from '../../src/journal/journal.js'
import { createLogger } from '../../src/log/logger.js'
import { type Bot, createBot } from '../../src/runtime/bot.js'
import type { RunningSandbox } from '../../src/sandbox/start-sandbox.js'
import { createBufferedState } from '../../src/strategy/buffered-state.js'
import { createSafeStrategy, type StrategyRun } from '../../src/strategy/safe-strategy.js'
import { ManualClock } from '../../src/time/clock.js'
import { committedAmount, minDestAmountPerSlice, nextOrderAmount } from '../../strategies/dca/dca-budget.js'
import { dcaConfigSchema } from '../../strategies/dca/dca-config.js'
import { summarizeSchedule } from '../../strategies/dca/dca-schedule.js'
import { type DcaState, readSettledOrders, readWholeDcaState } from '../../strategies/dca/dca-state.js'
import dca from '../../strategies/dca/index.js'
import { checkPriceGuard } from '../../strategies/dca/price-guard.js'
import { sandboxExecutorContext } from '../helpers/executor.js'
import { quoteMarket } from '../helpers/market.js'
import { request, sandboxToken, sandboxWallet, useSandbox } from '../helpers/sandbox.js'
import { createTempDirectory } from '../helpers/temp-directory.js'
import { balanceOf, poolQuote, swapOnPool } from '../sandbox/delta-engine-fixture.js'

const logger = createLogger({ level: 'silent' })
const directory = createTempDirectory('deltaflow-dca-')
const unitJournals: Journal[] = []
afterAll(() => {
  for (const journal of unitJournals) journal.close()
  directory.cleanup()
})
const usdcAddress: Address = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48'
const wethAddress: Address = '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2'
const oneWeth = 10n ** 18n

/** 2 orders × 2 slices over 240 s: one slice a minute, an order every 120 s. */
const baseConfig = {
  chainId: 1,
  srcToken: usdcAddress,
  destToken: wethAddress,
  budget: '1000',
  periodSeconds: 240,
  orders: 2,
  slicesPerOrder: 2,
}

// ---------------------------------------------------------------------------------------------------------------
// The strategy in its real wrapper (createSafeStrategy) over a real journal file and a manual clock.

function journalOrder(intent: Intent, status: OrderStatus): OrderView {
  if (intent.kind !== 'twap-sell') throw new Error(`expected a twap-sell intent, received ${intent.kind}`)
  return {
    id: `${intent.id}/0`,
    intentId: intent.id,
    mode: 'delta',
    account: '0x0000000000000000000000000000000000000001',
    beneficiary: '0x0000000000000000000000000000000000000001',
    chainId: 1,
    destChainId: 1,
    venueId: null,
    orderHash: null,
    deadline: null,
    srcToken: intent.srcToken.toLowerCase() as Address,
    destToken: intent.destToken.toLowerCase() as Address,
    srcAmount: intent.totalSrcAmount,
    destAmount: 0n,
    side: 'SELL',
    status,
    createdAt: 0,
    updatedAt: 0,
  }
}

let journalCount = 0

function createHarness(config: Record<string, unknown>, shared?: { journal: Journal; clock: ManualClock }) {
  const clock = shared?.clock ?? new ManualClock(1_800_000_000_000)
  let journal = shared?.journal
  const file = directory.path(`unit-${++journalCount}.sqlite`)
  if (!journal) {
    journal = openJournal({ file, clock })
    unitJournals.push(journal)
  }
  const strategy = createSafeStrategy(dca, { config, clock, logger, journal })
  let fillId = 0
  const intentsOf = (run: StrategyRun): Intent[] => {
    if (run.outcome !== 'handled') throw new Error(`expected the event handled, received ${JSON.stringify(run)}`)
    return run.intents
  }
  const [subscription] = strategy.subscriptions
  return {
    clock,
    journal,
    strategy,
    /** When each of the strategy's state keys was last written, read from the journal file itself. */
    writtenAt: (): Record<string, number> => {
      if (shared) throw new Error('writtenAt reads the harness own journal file')
      const db = new BetterSqlite3(file, { readonly: true })
      try {
        const rows = db
          .prepare<[], { key: string; updatedAt: number }>("SELECT key, updated_at AS updatedAt FROM strategy_state WHERE strategy = 'dca'")
          .all()
        return Object.fromEntries(rows.map((row) => [row.key, row.updatedAt]))
      } finally {
        db.close()
      }
    },
    schedule: (): DcaState => {
      const schedule = scheduleIn(journal, 'dca')
      if (!schedule) throw new Error('the dca keeps no schedule yet')
      return schedule
    },
    start: async () => intentsOf(await strategy.start()),
    timer: async () => intentsOf(await strategy.handleTimer(strategy.timers[0] ?? 0)),
    /** A quote of the subscribed slice giving `destAmount`. */
    quote: async (destAmount: bigint) => {
      if (!subscription) throw new Error('the strategy subscribed to nothing')
      const quote: Quote = {
        request: subscription,
        key: quoteRequestKey(subscription),
        srcAmount: subscription.amount,
        destAmount,
        answer: { source: 'market', route: {} } as unknown as Quote['answer'],
        requestedAt: clock.now(),
        receivedAt: clock.now(),
      }
      return intentsOf(await strategy.handleQuote(quote))
    },
    update: async (intent: Intent, status: OrderStatus) =>
      intentsOf(await strategy.handleOrderUpdate({ order: journalOrder(intent, status), reason: 'venue' })),
    /** What the executor did with `intent`, as the runtime tells it (no order unless `orderId` is given). */
    result: async (intent: Intent, status: IntentResult['status'], reason: string | null, orderId: string | null = null) =>
      intentsOf(await strategy.handleIntentResult({ intentId: intent.id, kind: intent.kind, status, reason, orderId })),
    fill: async (intent: Intent, spentAmount: bigint, receivedAmount: bigint, id = ++fillId) => {
      const order = journalOrder(intent, 'ACTIVE')
      const fill: FillView = {
        id,
        orderId: order.id,
        chainId: 1,
        txHash: `0x${id.toString(16).padStart(64, '0')}`,
        destinationChainId: null,
        destinationTxHash: null,
        spentAmount,
        receivedAmount,
        recordedAt: 0,
      }
      return intentsOf(await strategy.handleFill({ order, fill }))
    },
  }
}

function only(intents: Intent[]): Extract<Intent, { kind: 'twap-sell' }> {
  expect(intents).toHaveLength(1)
  const [intent] = intents
  if (intent?.kind !== 'twap-sell') throw new Error(`expected one twap-sell intent, received ${JSON.stringify(intents)}`)
  return intent
}

describe('dca arithmetic', () => {
  it('shares the remaining budget over the slots left, the last slot taking all of it', () => {
    expect(nextOrderAmount({ remaining: 1000n, slotsLeft: 3, slicesPerOrder: 2 })).toBe(333n)
    expect(nextOrderAmount({ remaining: 1000n, slotsLeft: 1, slicesPerOrder: 2 })).toBe(1000n)
    expect(nextOrderAmount({ remaining: 5n, slotsLeft: 4, slicesPerOrder: 3 })).toBe(3n)
    expect(nextOrderAmount({ remaining: 2n, slotsLeft: 4, slicesPerOrder: 3 })).toBe(0n)
  })

  it('never gives an order more than the remaining budget, nor less than one raw unit per slice', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 10n ** 30n }),
        fc.integer({ min: 1, max: 500 }),
        fc.integer({ min: 2, max: 50 }),
        (remaining, slotsLeft, slices) => {
          const amount = nextOrderAmount({ remaining, slotsLeft, slicesPerOrder: slices })
          expect(amount <= remaining).toBe(true)
          expect(amount === 0n || amount >= BigInt(slices)).toBe(true)
          expect(amount === 0n).toBe(remaining < BigInt(slices))
        },
      ),
    )
  })

  it('turns maxPrice into the least output per slice, rounded up so no slice is priced above it', () => {
    // 2500 USDC per WETH: a slice of 100 USDC must give at least 0.04 WETH.
    const maxPrice = { srcAmount: 2_500_000_000n, destAmount: oneWeth }
    expect(minDestAmountPerSlice(200_000_000n, 2, maxPrice)).toBe(40_000_000_000_000_000n)
    expect(minDestAmountPerSlice(7n, 2, { srcAmount: 2n, destAmount: 3n })).toBe(5n)
    expect(minDestAmountPerSlice(2n, 2, { srcAmount: 10n ** 18n, destAmount: 1n })).toBe(1n)
  })

  it('blocks a quote above maxPrice or below minPrice and lets the limit price itself through', () => {
    const guard = { maxPrice: { srcAmount: 2000n, destAmount: 1n }, minPrice: { srcAmount: 1000n, destAmount: 1n } }
    expect(checkPriceGuard(guard, { srcAmount: 2000n, destAmount: 1n })).toEqual({ allowed: true })
    expect(checkPriceGuard(guard, { srcAmount: 1000n, destAmount: 1n })).toEqual({ allowed: true })
    expect(checkPriceGuard(guard, { srcAmount: 2001n, destAmount: 1n })).toMatchObject({
      allowed: false,
      reason: expect.stringMatching(/above maxPrice/),
    })
    expect(checkPriceGuard(guard, { srcAmount: 999n, destAmount: 1n })).toMatchObject({
      allowed: false,
      reason: expect.stringMatching(/below minPrice/),
    })
    expect(checkPriceGuard(guard, { srcAmount: 1n, destAmount: 0n })).toMatchObject({ allowed: false })
  })
})

describe('dca config', () => {
  it('accepts config/dca.yaml as a bot config whose dca entries pass the strategy schema', () => {
    const config = parseConfig(readFileSync('config/dca.yaml', 'utf8'), 'config/dca.yaml')
    const entries = config.strategies.filter((entry) => entry.use === 'dca')
    expect(entries).toHaveLength(1)
    const parsed = dcaConfigSchema.parse(entries[0]?.config)
    expect(parsed).toMatchObject({ chainId: 1, budget: 1_000_000_000n, orders: 24, slicesPerOrder: 6, guard: { action: 'pause' } })
  })

  it('names the field and what was expected when the config is wrong', () => {
    const problems = (config: Record<string, unknown>) =>
      (dcaConfigSchema.safeParse(config).error?.issues ?? []).map((issue) => `${issue.path.join('.')}: ${issue.message}`)
    expect(problems({ ...baseConfig, periodSeconds: 200 })).toEqual([
      'periodSeconds: expected at least 240 seconds (orders × slicesPerOrder × 60: a TWAP interval is at least 60 s), received 200',
    ])
    expect(problems({ ...baseConfig, budget: 1000 })).toEqual([
      'budget: expected a raw amount above 0 as a decimal integer string (e.g. "1000000000"; quote it in YAML), received 1000',
    ])
    expect(problems({ ...baseConfig, budget: '3' })[0]).toMatch(/^budget: expected at least orders × slicesPerOrder = 4 raw units/)
    expect(problems({ ...baseConfig, guard: { action: 'skip' } })).toEqual([
      'guard: expected maxPrice, minPrice or both (a guard without a limit guards nothing)',
    ])
    expect(problems({ ...baseConfig, guard: { maxPrice: { srcAmount: '1', destAmount: '1' }, action: 'stop' } })).toEqual([
      'guard.action: expected skip or pause, received "stop"',
    ])
    expect(problems({ ...baseConfig, slicesPerOrder: 1 })[0]).toMatch(/^slicesPerOrder: expected an integer number of slices, at least 2/)
    expect(problems({ ...baseConfig, budgett: '1' })[0]).toMatch(/budgett/)
  })
})

describe('dca schedule', () => {
  it('places the first TWAP at start, and the next one once the first COMPLETED and its slot is due', async () => {
    const h = createHarness(baseConfig)
    const first = only(await h.start())
    expect(first).toMatchObject({ kind: 'twap-sell', totalSrcAmount: 500n, numSlices: 2, intervalSeconds: 60, maxSlippageBps: 50 })
    expect(first.minDestAmountPerSlice).toBeUndefined()
    await h.update(first, 'ACTIVE')
    h.clock.advance(60_000)
    expect(await h.timer()).toEqual([])
    await h.fill(first, 250n, 7n)
    await h.fill(first, 250n, 8n)
    h.clock.advance(60_000)
    const second = only(await h.update(first, 'COMPLETED'))
    expect(second.totalSrcAmount).toBe(500n)
    await h.fill(second, 250n, 9n)
    await h.fill(second, 250n, 9n)
    expect(await h.update(second, 'COMPLETED')).toEqual([])
    expect(await h.timer()).toEqual([])
    expect(summarizeSchedule(h.schedule(), 1000n)).toEqual({
      committed: 1000n,
      remaining: 0n,
      spent: 1000n,
      received: 33n,
      ordersPlaced: 2,
      placementsFailed: 0,
      slotsSkipped: 0,
      finished: true,
    })
  })

  it('waits for the running order even when the next slot is due', async () => {
    const h = createHarness(baseConfig)
    const first = only(await h.start())
    await h.update(first, 'ACTIVE')
    h.clock.advance(600_000)
    expect(await h.timer()).toEqual([])
    expect(h.schedule().nextSlot).toBe(1)
  })

  it('gives what an expired TWAP did not spend back to the budget, settled only after its fills were heard', async () => {
    const h = createHarness({ ...baseConfig, orders: 3, periodSeconds: 360 })
    const first = only(await h.start())
    expect(first.totalSrcAmount).toBe(333n)
    await h.update(first, 'ACTIVE')
    h.clock.advance(300_000)
    // The final status comes before the fills journaled with it: nothing is placed on the status alone.
    expect(await h.update(first, 'EXPIRED')).toEqual([])
    expect(await h.fill(first, 166n, 5n)).toEqual([])
    const second = only(await h.timer())
    // 1000 − 166 spent, over the 2 slots left.
    expect(second.totalSrcAmount).toBe(417n)
    await h.update(second, 'CANCELLED')
    h.clock.advance(300_000)
    const third = only(await h.timer())
    expect(third.totalSrcAmount).toBe(834n)
    expect(committedAmount(h.schedule().orders)).toBe(1000n)
  })

  it('keeps the orders settled before the latest slot apart, and counts a late fill of one of them once', async () => {
    const h = createHarness({ ...baseConfig, orders: 4, periodSeconds: 480 })
    const placed: Extract<Intent, { kind: 'twap-sell' }>[] = [only(await h.start())]
    for (let slot = 0; slot < 3; slot++) {
      const order = placed[slot] as (typeof placed)[number]
      await h.fill(order, order.totalSrcAmount / 2n, 3n)
      await h.fill(order, order.totalSrcAmount - order.totalSrcAmount / 2n, 4n, 100 + slot)
      h.clock.advance(120_000)
      placed.push(only(await h.update(order, 'COMPLETED')))
    }
    // Slots 0 to 2 settled before the latest placed (3): kept apart, summed up in the schedule.
    const stored = h.journal.getStrategyState('dca', 'schedule') as { orders: { slot: number }[]; settled: Record<string, unknown> }
    expect(stored.orders.map((record) => record.slot)).toEqual([3])
    expect(stored.settled).toEqual({ orders: 3, committed: '750', spent: '750', received: '21' })
    // Each write appends the orders it settles as a part of their own, keyed by how many came before: nothing settled
    // earlier is read or written again.
    const keptApart = (key: string) =>
      (h.journal.getStrategyState('dca', key) as { slot: number; key: string }[] | undefined)?.map((record) => [record.slot, record.key])
    expect(keptApart('settledOrders')).toEqual([[0, 'twap-0']])
    expect(keptApart('settledOrders@1')).toEqual([[1, 'twap-1']])
    expect(keptApart('settledOrders@2')).toEqual([[2, 'twap-2']])
    // The whole schedule reads as before: every order, in placement order.
    expect(h.schedule().orders.map((record) => record.key)).toEqual(['twap-0', 'twap-1', 'twap-2', 'twap-3'])
    expect(committedAmount(h.schedule().orders)).toBe(1000n)
    // A fill of slot 0 heard again (a restart's redelivery) changes nothing; a new one is counted against the budget.
    const first = placed[0] as (typeof placed)[number]
    await h.fill(first, 1n, 1n, 100)
    expect(summarizeSchedule(h.schedule(), 1000n)).toMatchObject({ committed: 1000n, spent: 750n, ordersPlaced: 4 })
    await h.fill(first, 10n, 1n, 900)
    expect(h.schedule().orders[0]).toMatchObject({ spent: 260n, fillIds: [1, 100, 900] })
    expect(summarizeSchedule(h.schedule(), 1000n)).toMatchObject({ committed: 1010n, spent: 760n, received: 22n })
    // The late fill moved the record back into the schedule read whole and out again on the write: still apart, all
    // under one key again, the parts gone.
    expect(keptApart('settledOrders')?.map(([slot]) => slot)).toEqual([0, 1, 2])
    expect([keptApart('settledOrders@1'), keptApart('settledOrders@2')]).toEqual([undefined, undefined])
    // Settling goes on after them.
    const last = placed[3] as (typeof placed)[number]
    await h.fill(last, last.totalSrcAmount, 5n)
    expect(await h.update(last, 'COMPLETED')).toEqual([])
    expect(summarizeSchedule(h.schedule(), 1000n)).toMatchObject({ spent: 1010n, ordersPlaced: 4, finished: true })
  })

  it('reads the settled orders back from their parts after a restart, and names a part that is missing', async () => {
    const h = createHarness({ ...baseConfig, orders: 4, periodSeconds: 480 })
    const placed: Extract<Intent, { kind: 'twap-sell' }>[] = [only(await h.start())]
    for (let slot = 0; slot < 3; slot++) {
      const order = placed[slot] as (typeof placed)[number]
      await h.fill(order, order.totalSrcAmount, 5n, 200 + slot)
      h.clock.advance(120_000)
      placed.push(only(await h.update(order, 'COMPLETED')))
    }
    const whole = h.schedule()
    const restarted = createHarness({ ...baseConfig, orders: 4, periodSeconds: 480 }, h)
    const last = placed[3] as (typeof placed)[number]
    expect(only(await restarted.start()).id).toBe(last.id)
    expect(restarted.schedule().orders.map((record) => [record.key, record.fillIds])).toEqual([
      ['twap-0', [200]],
      ['twap-1', [201]],
      ['twap-2', [202]],
      ['twap-3', []],
    ])
    expect(summarizeSchedule(restarted.schedule(), 1000n)).toEqual(summarizeSchedule(whole, 1000n))

    h.journal.deleteStrategyState('dca', 'settledOrders@1')
    const { state } = createBufferedState(h.journal, 'dca')
    expect(() => readSettledOrders(state, 3)).toThrow(
      'dca state: the schedule counts 3 settled orders, but the records after the first 1 (key "settledOrders@1") are missing',
    )
  })

  it('appends the orders settled after a whole-schedule write as parts after it, and reads them all back', async () => {
    const config = { ...baseConfig, budget: '6000', orders: 6, periodSeconds: 720 }
    const h = createHarness(config)
    const placed: Extract<Intent, { kind: 'twap-sell' }>[] = [only(await h.start())]
    const settle = async (slot: number) => {
      const order = placed[slot] as (typeof placed)[number]
      await h.fill(order, order.totalSrcAmount, 5n, 300 + slot)
      h.clock.advance(120_000)
      placed.push(only(await h.update(order, 'COMPLETED')))
    }
    for (let slot = 0; slot < 3; slot++) await settle(slot)
    // A late fill of slot 0: the schedule is read whole and written back with every settled order under one key.
    await h.fill(placed[0] as (typeof placed)[number], 1n, 1n, 900)
    const slots = (key: string) => (h.journal.getStrategyState('dca', key) as { slot: number }[] | undefined)?.map((record) => record.slot)
    expect([slots('settledOrders'), slots('settledOrders@1'), slots('settledOrders@2')]).toEqual([[0, 1, 2], undefined, undefined])
    // Settled after it: each a part keyed by how many came before it.
    for (let slot = 3; slot < 5; slot++) await settle(slot)
    expect([slots('settledOrders'), slots('settledOrders@3'), slots('settledOrders@4')]).toEqual([[0, 1, 2], [3], [4]])
    const { state } = createBufferedState(h.journal, 'dca')
    expect(readSettledOrders(state, 5).map((record) => [record.slot, record.fillIds])).toEqual([
      [0, [300, 900]],
      [1, [301]],
      [2, [302]],
      [3, [303]],
      [4, [304]],
    ])
    // 1,000 per order, and the late fill's 1 came out of the orders placed after it (slot 4: 1,999 over two slots, 999).
    expect((placed[4] as (typeof placed)[number]).totalSrcAmount).toBe(999n)
    expect(summarizeSchedule(h.schedule(), 6000n)).toMatchObject({ spent: 5000n, received: 26n, ordersPlaced: 6 })
  })

  it('reads a schedule stored with every settled order in it, and keeps them apart from its next write', async () => {
    const h = createHarness({ ...baseConfig, orders: 4, periodSeconds: 480 })
    const placed: Extract<Intent, { kind: 'twap-sell' }>[] = [only(await h.start())]
    for (let slot = 0; slot < 3; slot++) {
      const order = placed[slot] as (typeof placed)[number]
      await h.fill(order, order.totalSrcAmount, 5n)
      h.clock.advance(120_000)
      placed.push(only(await h.update(order, 'COMPLETED')))
    }
    const whole = h.schedule()
    // The stored form of before: one key, every order in it, no settled summary.
    const toJson = (value: unknown) =>
      JSON.parse(JSON.stringify(value, (_key, inner) => (typeof inner === 'bigint' ? String(inner) : inner)))
    const { settled: _settled, ...before } = toJson(whole) as Record<string, unknown>
    h.journal.setStrategyState('dca', 'schedule', before)
    h.journal.deleteStrategyState('dca', 'settledOrders')
    const restarted = createHarness({ ...baseConfig, orders: 4, periodSeconds: 480 }, h)
    const last = placed[3] as (typeof placed)[number]
    // The latest order was never seen: asked for again, as it was.
    expect(only(await restarted.start()).id).toBe(last.id)
    expect(summarizeSchedule(restarted.schedule(), 1000n)).toEqual(summarizeSchedule(whole, 1000n))
    await restarted.fill(last, last.totalSrcAmount, 5n)
    expect(await restarted.update(last, 'COMPLETED')).toEqual([])
    expect((h.journal.getStrategyState('dca', 'settledOrders') as { slot: number }[]).map((record) => record.slot)).toEqual([0, 1, 2])
    expect(summarizeSchedule(restarted.schedule(), 1000n)).toMatchObject({
      committed: 1000n,
      spent: 1000n,
      ordersPlaced: 4,
      finished: true,
    })
  })

  it('counts a fill delivered twice once', async () => {
    const h = createHarness(baseConfig)
    const first = only(await h.start())
    await h.fill(first, 100n, 3n, 41)
    await h.fill(first, 100n, 3n, 41)
    expect(h.schedule().orders[0]).toMatchObject({ spent: 100n, received: 3n, fillIds: [41] })
  })

  it('skips a slot the guard blocks (action skip), keeps the pace and spends its share later', async () => {
    const maxPrice = { srcAmount: '250', destAmount: '1' }
    const h = createHarness({ ...baseConfig, guard: { maxPrice, action: 'skip' } })
    // Nothing without a quote, whatever the action.
    expect(await h.start()).toEqual([])
    // The subscription prices one nominal slice: 1000 / (2 × 2) = 250.
    expect(h.strategy.subscriptions[0]).toMatchObject({ source: 'market', amount: 250n, side: 'SELL' })
    const startedAt = h.clock.now()
    expect(await h.quote(0n)).toEqual([])
    expect(h.schedule()).toMatchObject({ nextSlot: 1, nextDueAt: startedAt + 120_000, skipped: [{ slot: 0, at: startedAt }] })
    h.clock.advance(119_000)
    expect(await h.quote(1n)).toEqual([])
    h.clock.advance(1_000)
    const last = only(await h.quote(1n))
    expect(last.totalSrcAmount).toBe(1000n)
    // maxPrice 250 per 1, signed into the TWAP: a slice of 500 gives at least 2.
    expect(last.minDestAmountPerSlice).toBe(2n)
  })

  it('holds a due slot while the guard blocks (action pause) and shifts the schedule by the wait', async () => {
    const h = createHarness({ ...baseConfig, guard: { maxPrice: { srcAmount: '250', destAmount: '1' }, action: 'pause' } })
    expect(await h.start()).toEqual([])
    const blockedAt = h.clock.now()
    expect(await h.quote(0n)).toEqual([])
    h.clock.advance(500_000)
    expect(await h.quote(0n)).toEqual([])
    expect(h.schedule()).toMatchObject({ nextSlot: 0, pausedSince: blockedAt, skipped: [], orders: [] })
    h.clock.advance(1_000)
    const first = only(await h.quote(1n))
    expect(first.totalSrcAmount).toBe(500n)
    expect(h.schedule()).toMatchObject({ nextSlot: 1, pausedSince: null, nextDueAt: h.clock.now() + 120_000 })
  })

  it('while paused by the price, reads and writes nothing for a quote outside the guard, and resumes on one within it', async () => {
    const config = { ...baseConfig, guard: { maxPrice: { srcAmount: '250', destAmount: '1' }, action: 'pause' } }
    const h = createHarness(config)
    expect(await h.start()).toEqual([])
    const pausedAt = h.clock.now()
    expect(await h.quote(0n)).toEqual([])
    const paused = h.schedule()
    const before = h.writtenAt()
    for (let quote = 0; quote < 5; quote += 1) {
      h.clock.advance(10_000)
      expect(await h.quote(0n)).toEqual([])
      expect(await h.timer()).toEqual([])
    }
    // Nothing was written: the schedule, its wake time and the guard quote that paused it are as the pause left them.
    expect(h.writtenAt()).toEqual(before)
    expect(Object.keys(before).sort()).toEqual(['guardQuote', 'schedule', 'wakeAt'])
    expect(h.schedule()).toEqual(paused)
    expect(h.journal.getStrategyState('dca', 'guardQuote')).toMatchObject({ destAmount: '0', receivedAt: pausedAt })
    // Restarted, with the guard quote that paused it long stale: still paused, and the first quote within resumes it.
    const restarted = createHarness(config, { journal: h.journal, clock: h.clock })
    expect(await restarted.start()).toEqual([])
    expect(await restarted.quote(0n)).toEqual([])
    expect(h.schedule()).toEqual(paused)
    h.clock.advance(1_000)
    expect(only(await restarted.quote(1n)).totalSrcAmount).toBe(500n)
    expect(h.schedule()).toMatchObject({ nextSlot: 1, pausedSince: null, orders: [{ slot: 0, phase: 'placed' }] })
    expect(h.clock.now() - pausedAt).toBe(51_000)
  })

  it('resumes a pause journaled with the wake-on-any-quote marker of earlier versions', async () => {
    const h = createHarness({ ...baseConfig, guard: { maxPrice: { srcAmount: '250', destAmount: '1' }, action: 'pause' } })
    expect(await h.start()).toEqual([])
    expect(await h.quote(0n)).toEqual([])
    // Earlier versions kept -1 (wake on the next quote) while paused.
    h.journal.setStrategyState('dca', 'wakeAt', -1)
    h.clock.advance(1_000)
    expect(await h.timer()).toEqual([])
    expect(await h.quote(0n)).toEqual([])
    expect(h.schedule()).toMatchObject({ nextSlot: 0, pausedSince: expect.any(Number), orders: [] })
    expect(h.journal.getStrategyState('dca', 'wakeAt')).toBe(-2)
    h.clock.advance(1_000)
    expect(only(await h.quote(1n)).totalSrcAmount).toBe(500n)
  })

  it('waits for a fresh quote: one older than maxQuoteAgeSeconds neither places nor skips', async () => {
    const h = createHarness({
      ...baseConfig,
      guard: { maxPrice: { srcAmount: '250', destAmount: '1' }, action: 'skip', maxQuoteAgeSeconds: 30 },
    })
    expect(await h.start()).toEqual([])
    const first = only(await h.quote(1n))
    h.clock.advance(120_000)
    // Due, but the last quote is 120 s old.
    expect(await h.update(first, 'COMPLETED')).toEqual([])
    expect(h.schedule()).toMatchObject({ nextSlot: 1, skipped: [] })
    expect(only(await h.quote(1n)).totalSrcAmount).toBe(500n)
  })

  it('asks again after a restart for an order placed but never seen, with the same intent id', async () => {
    const first = createHarness(baseConfig)
    const placed = only(await first.start())
    const restarted = createHarness(baseConfig, first)
    const replayed = only(await restarted.start())
    expect(replayed.id).toBe(placed.id)
    await restarted.update(replayed, 'ACTIVE')
    const again = createHarness(baseConfig, first)
    expect(await again.start()).toEqual([])
  })

  it('gives up a slot whose order never appears, keeping its amount committed', async () => {
    const h = createHarness({ ...baseConfig, placementTimeoutSeconds: 300 })
    const first = only(await h.start())
    h.clock.advance(300_000)
    const second = only(await h.timer())
    expect(h.schedule().orders[0]?.phase).toBe('lost')
    expect(second.totalSrcAmount).toBe(500n)
    // The lost order turns up after all: followed again, its unspent amount returned once it is settled.
    await h.update(first, 'EXPIRED')
    expect(h.schedule().orders[0]?.phase).toBe('ended')
  })

  it('never commits more than the budget, whatever the orders fill and however they end', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.bigInt({ min: 6n, max: 10n ** 12n }),
        fc.array(
          fc.record({
            fillPercent: fc.integer({ min: 0, max: 100 }),
            status: fc.constantFrom('COMPLETED', 'EXPIRED', 'CANCELLED', 'FAILED'),
          }),
          {
            minLength: 3,
            maxLength: 3,
          },
        ),
        async (budget, outcomes) => {
          const h = createHarness({ ...baseConfig, budget: budget.toString(), orders: 3, periodSeconds: 360 })
          let placed = only(await h.start())
          let spent = 0n
          for (const outcome of outcomes) {
            const status = outcome.status as OrderStatus
            const orderSpent = status === 'COMPLETED' ? placed.totalSrcAmount : (placed.totalSrcAmount * BigInt(outcome.fillPercent)) / 100n
            expect(committedAmount(h.schedule().orders)).toBeLessThanOrEqual(budget)
            await h.update(placed, status)
            if (orderSpent > 0n) await h.fill(placed, orderSpent, 1n)
            spent += orderSpent
            h.clock.advance(120_000)
            const next = await h.timer()
            if (next.length === 0) break
            placed = only(next)
          }
          expect(spent).toBeLessThanOrEqual(budget)
          expect(committedAmount(h.schedule().orders)).toBeLessThanOrEqual(budget)
        },
      ),
      { numRuns: 60 },
    )
  })
})

const serverError = 'ApiServerError (retryable): GET /v2/delta/prices failed on the service side (500)'

describe('dca: a placement that fails without an order', () => {
  it('places the slot again retrySeconds later under a new key, and commits the budget once', async () => {
    const h = createHarness({ ...baseConfig, retrySeconds: 30 })
    const first = only(await h.start())
    expect(first.totalSrcAmount).toBe(500n)
    expect(await h.result(first, 'failed', serverError)).toEqual([])
    expect(h.schedule()).toMatchObject({ nextSlot: 0, skipped: [] })
    expect(h.schedule().orders[0]).toMatchObject({ phase: 'failed', key: 'twap-0', reason: `failed: ${serverError}` })
    expect(committedAmount(h.schedule().orders)).toBe(0n)

    h.clock.advance(29_000)
    expect(await h.timer()).toEqual([])
    h.clock.advance(1_000)
    const again = only(await h.timer())
    expect(again.id).not.toBe(first.id)
    expect(again).toMatchObject({ totalSrcAmount: 500n, numSlices: 2, intervalSeconds: 60 })
    expect(h.schedule().orders[1]).toMatchObject({ slot: 0, attempt: 1, key: 'twap-0-r1', phase: 'placed' })
    expect(committedAmount(h.schedule().orders)).toBe(500n)

    // The retry runs its course: the second slot gets the other half, not what a lost order would have left.
    await h.update(again, 'ACTIVE')
    await h.fill(again, 250n, 7n)
    await h.fill(again, 250n, 8n)
    h.clock.advance(120_000)
    const second = only(await h.update(again, 'COMPLETED'))
    expect(second.totalSrcAmount).toBe(500n)
    await h.fill(second, 500n, 15n)
    expect(await h.update(second, 'COMPLETED')).toEqual([])
    expect(summarizeSchedule(h.schedule(), 1000n)).toEqual({
      committed: 1000n,
      remaining: 0n,
      spent: 1000n,
      received: 30n,
      ordersPlaced: 2,
      placementsFailed: 1,
      slotsSkipped: 0,
      finished: true,
    })
  })

  it('skips the slot after retriesPerSlot failed retries, and spreads its share over the later slots', async () => {
    const h = createHarness({ ...baseConfig, retrySeconds: 30, retriesPerSlot: 1 })
    const startedAt = h.clock.now()
    const first = only(await h.start())
    await h.result(first, 'failed', serverError)
    h.clock.advance(30_000)
    const again = only(await h.timer())
    expect(await h.result(again, 'failed', 'ChainUnavailableError (retryable): chain 1 does not answer')).toEqual([])
    expect(h.schedule().skipped).toEqual([
      {
        slot: 0,
        at: h.clock.now(),
        reason: 'placement failed 2 times, the last failed: ChainUnavailableError (retryable): chain 1 does not answer',
      },
    ])
    expect(h.schedule().nextSlot).toBe(1)
    h.clock.advance(30_000)
    expect(await h.timer()).toEqual([])
    // The next slot keeps its pace from the last attempt, and takes the whole budget.
    h.clock.advance(89_000)
    expect(h.clock.now()).toBe(startedAt + 30_000 + 119_000)
    expect(await h.timer()).toEqual([])
    h.clock.advance(1_000)
    expect(only(await h.timer()).totalSrcAmount).toBe(1000n)
    expect(summarizeSchedule(h.schedule(), 1000n)).toMatchObject({
      committed: 1000n,
      ordersPlaced: 1,
      placementsFailed: 2,
      slotsSkipped: 1,
    })
  })

  it('skips a refused slot at once, keeping the pace and the budget', async () => {
    const h = createHarness({ ...baseConfig, retrySeconds: 30 })
    const first = only(await h.start())
    const refusal = 'a trade of 500 raw units is above the daily budget'
    expect(await h.result(first, 'refused', refusal)).toEqual([])
    expect(h.schedule().skipped).toEqual([{ slot: 0, at: h.clock.now(), reason: `refused: ${refusal}` }])
    expect(h.schedule().orders[0]).toMatchObject({ phase: 'failed', reason: `refused: ${refusal}` })
    expect(committedAmount(h.schedule().orders)).toBe(0n)
    h.clock.advance(60_000)
    expect(await h.timer()).toEqual([])
    h.clock.advance(60_000)
    const second = only(await h.timer())
    expect(second).toMatchObject({ totalSrcAmount: 1000n })
    expect(h.schedule().orders[1]).toMatchObject({ slot: 1, attempt: 0, key: 'twap-1' })
  })

  it('leaves a failure that names an order to that order, and ignores accepted results', async () => {
    const h = createHarness({ ...baseConfig, retrySeconds: 30 })
    const first = only(await h.start())
    expect(await h.result(first, 'accepted', null, `${first.id}/0`)).toEqual([])
    expect(await h.result(first, 'failed', serverError, `${first.id}/0`)).toEqual([])
    expect(h.schedule().orders[0]?.phase).toBe('placed')
    h.clock.advance(30_000)
    expect(await h.timer()).toEqual([])
    expect(committedAmount(h.schedule().orders)).toBe(500n)
    // Its order ends without a fill: the slot is spent, its amount back in the budget.
    await h.update(first, 'FAILED')
    h.clock.advance(90_000)
    expect(only(await h.timer()).totalSrcAmount).toBe(1000n)
  })

  it('gives back the amount of an order given up as lost once its intent is told failed', async () => {
    const h = createHarness({ ...baseConfig, orders: 3, periodSeconds: 360, placementTimeoutSeconds: 120 })
    const first = only(await h.start())
    h.clock.advance(120_000)
    const second = only(await h.timer())
    expect(second.totalSrcAmount).toBe(333n)
    expect(h.schedule().orders[0]?.phase).toBe('lost')
    expect(await h.result(first, 'failed', serverError)).toEqual([])
    expect(h.schedule().orders[0]?.phase).toBe('failed')
    // Slot 0's turn has passed: nothing is placed again for it; its 333 are spread over what is left.
    expect(h.schedule().nextSlot).toBe(2)
    expect(committedAmount(h.schedule().orders)).toBe(333n)
  })

  it('after a restart, does not ask again for a failed placement and places its slot again once', async () => {
    const h = createHarness({ ...baseConfig, retrySeconds: 30 })
    const first = only(await h.start())
    // Restarted before the result was heard: the replay is the same intent, which the executor answers failed.
    const restarted = createHarness({ ...baseConfig, retrySeconds: 30 }, h)
    expect(only(await restarted.start()).id).toBe(first.id)
    await restarted.result(first, 'failed', serverError)
    await restarted.result(first, 'failed', serverError)
    const again = createHarness({ ...baseConfig, retrySeconds: 30 }, h)
    expect(await again.start()).toEqual([])
    h.clock.advance(30_000)
    const retry = only(await again.timer())
    expect(retry.id).not.toBe(first.id)
    expect(await again.timer()).toEqual([])
    expect(again.schedule().orders.map((record) => [record.key, record.phase])).toEqual([
      ['twap-0', 'failed'],
      ['twap-0-r1', 'placed'],
    ])
  })

  it('never commits more than the budget, and a placement that failed or was refused commits nothing', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.bigInt({ min: 6n, max: 10n ** 12n }),
        fc.array(
          fc.record({
            result: fc.constantFrom('placed', 'failed', 'refused'),
            fillPercent: fc.integer({ min: 0, max: 100 }),
            status: fc.constantFrom('COMPLETED', 'EXPIRED'),
          }),
          { minLength: 1, maxLength: 8 },
        ),
        async (budget, steps) => {
          const h = createHarness({
            ...baseConfig,
            budget: budget.toString(),
            orders: 3,
            periodSeconds: 360,
            retrySeconds: 30,
            retriesPerSlot: 1,
          })
          let pending = await h.start()
          let spent = 0n
          for (const step of steps) {
            if (pending.length === 0) break
            const placed = only(pending)
            const others = committedAmount(h.schedule().orders.filter((record) => record.intentId !== placed.id))
            pending = []
            if (step.result === 'placed') {
              const status = step.status as OrderStatus
              const orderSpent = status === 'COMPLETED' ? placed.totalSrcAmount : (placed.totalSrcAmount * BigInt(step.fillPercent)) / 100n
              pending.push(...(await h.update(placed, status)))
              if (orderSpent > 0n) await h.fill(placed, orderSpent, 1n)
              spent += orderSpent
            } else {
              expect(await h.result(placed, step.result as 'failed' | 'refused', 'injected')).toEqual([])
              // What it held is back: the budget left is what it was before the placement.
              expect(committedAmount(h.schedule().orders)).toBe(others)
            }
            expect(committedAmount(h.schedule().orders)).toBeLessThanOrEqual(budget)
            h.clock.advance(120_000)
            pending.push(...(await h.timer()))
          }
          expect(spent).toBeLessThanOrEqual(budget)
          const { orders } = h.schedule()
          expect(committedAmount(orders.filter((record) => record.phase === 'failed'))).toBe(0n)
          expect(new Set(orders.map((record) => record.intentId)).size).toBe(orders.length)
        },
      ),
      { numRuns: 25 },
    )
  })

  it('reads a schedule stored before placements could fail, and places its failed slot again', async () => {
    const h = createHarness({ ...baseConfig, retrySeconds: 30 })
    const first = only(await h.start())
    // The stored form of before: no attempt, failedAt nor reason in an order record.
    const stored = h.journal.getStrategyState('dca', 'schedule') as { orders: Record<string, unknown>[] }
    const orders = stored.orders.map(({ attempt: _attempt, failedAt: _failedAt, reason: _reason, ...record }) => record)
    h.journal.setStrategyState('dca', 'schedule', { ...stored, orders })
    expect(Object.keys(orders[0] ?? {})).not.toContain('attempt')
    const restarted = createHarness({ ...baseConfig, retrySeconds: 30 }, h)
    expect(only(await restarted.start()).id).toBe(first.id)
    await restarted.result(first, 'failed', serverError)
    h.clock.advance(30_000)
    expect(only(await restarted.timer()).totalSrcAmount).toBe(500n)
    expect(restarted.schedule().orders.map((record) => record.key)).toEqual(['twap-0', 'twap-0-r1'])
  })
})

// ---------------------------------------------------------------------------------------------------------------
// On the sandbox: a real bot, executor, journal file and chain.

async function waitFor<T>(read: () => T | undefined, timeoutMs: number, what: string): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = read()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`waitFor: no ${what} after ${timeoutMs} ms`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

/** The whole schedule as the journal holds it: the settled orders kept apart under their own key included. */
function scheduleIn(journal: Journal, name: string): DcaState | undefined {
  if (journal.getStrategyState(name, 'schedule') === undefined) return undefined
  return readWholeDcaState(createBufferedState(journal, name).state)
}

describe('dca on the sandbox', () => {
  // One slice a minute passes in half a real second.
  const sandbox = useSandbox({ chainIds: [1], speed: 120, market: 'still' })

  async function startDcaBot(
    s: RunningSandbox,
    options: { accountIndex: number; journalFile: string; configs: Record<string, Record<string, unknown>> },
  ) {
    const usdc = sandboxToken(s, 1, 'USDC')
    const weth = sandboxToken(s, 1, 'WETH')
    const context = await sandboxExecutorContext(s, {
      accountIndex: options.accountIndex,
      journalFile: options.journalFile,
      clock: s.venue.clock,
    })
    const strategies = Object.entries(options.configs).map(([name, config]) =>
      createSafeStrategy({ ...dca, name }, { config, clock: s.venue.clock, journal: context.journal, logger }),
    )
    const bot: Bot = createBot({
      context,
      strategies,
      feedIntervalMs: 200,
      reconcileIntervalMs: 250,
      decimalsOf: decimalsFromTokenList([
        { chainId: 1, ...usdc },
        { chainId: 1, ...weth },
      ]),
      logger,
    })
    await bot.start()
    return { bot, context, journal: context.journal }
  }

  const tokenBalances = async (s: RunningSandbox, account: Address) => ({
    usdc: await balanceOf(s, 1, usdcAddress, account),
    weth: await balanceOf(s, 1, wethAddress, account),
  })

  it('buys with the whole budget over two TWAPs that COMPLETE, across a restart, as much WETH as the journal says', async () => {
    const s = sandbox()
    const account = sandboxWallet(s, 1, 3).account.address
    const journalFile = directory.path('dca-complete.sqlite')
    const budget = 100_000_000n
    const config = {
      ...baseConfig,
      budget: budget.toString(),
      // At most 10,000 USDC per WETH: the guard lets the sandbox's ~1,960 through.
      guard: { maxPrice: { srcAmount: '10000000000', destAmount: oneWeth.toString() }, action: 'pause' },
      checkIntervalSeconds: 15,
      placementTimeoutSeconds: 3_600,
    }
    const before = await tokenBalances(s, account)

    // First run: stopped once the first TWAP is on the venue.
    const first = await startDcaBot(s, { accountIndex: 3, journalFile, configs: { dca: config } })
    await waitFor(() => first.journal.listOrders({ strategy: 'dca' }).find((order) => order.submitted), 15_000, 'first order')
    await first.bot.stop()
    first.journal.close()

    // Second run over the same journal: follows the first TWAP to its end and places the second.
    const second = await startDcaBot(s, { accountIndex: 3, journalFile, configs: { dca: config } })
    const finished = await waitFor(
      () => {
        const schedule = scheduleIn(second.journal, 'dca')
        return schedule?.finishedAt != null ? schedule : undefined
      },
      20_000,
      'finished schedule',
    )
    await second.bot.stop()

    const orders = second.journal.listOrders({ strategy: 'dca' })
    expect(orders.map((order) => [order.status, order.srcAmount])).toEqual([
      ['COMPLETED', 50_000_000n],
      ['COMPLETED', 50_000_000n],
    ])
    expect(second.journal.intentsOf('dca')).toHaveLength(2)
    const fills = orders.flatMap((order) => second.journal.fillsOf(order.id))
    expect(fills).toHaveLength(4)
    const spent = fills.reduce((sum, fill) => sum + fill.spentAmount, 0n)
    const received = fills.reduce((sum, fill) => sum + fill.receivedAmount, 0n)
    expect(spent).toBe(budget)
    // The chain agrees to the wei: USDC out is the budget, WETH in is what the fills say.
    const after = await tokenBalances(s, account)
    expect(before.usdc - after.usdc).toBe(budget)
    expect(after.weth - before.weth).toBe(received)
    // And the strategy heard every fill.
    expect(summarizeSchedule(finished, budget)).toMatchObject({
      committed: budget,
      remaining: 0n,
      spent: budget,
      received,
      ordersPlaced: 2,
    })
    second.journal.close()

    // A third run after the end places nothing.
    const third = await startDcaBot(s, { accountIndex: 3, journalFile, configs: { dca: config } })
    await waitFor(() => (third.bot.stats().reconcilePasses >= 3 && third.bot.stats().quotes >= 3 ? true : undefined), 10_000, 'idle passes')
    await third.bot.stop()
    expect(third.bot.stats().intentsQueued).toBe(0)
    expect(third.journal.listOrders({ strategy: 'dca' })).toEqual(orders)
    third.journal.close()
  }, 45_000)

  it('places no order while the guard blocks: skip gives every slot up, pause holds the first', async () => {
    const s = sandbox()
    const account = sandboxWallet(s, 1, 5).account.address
    // At most 1 USDC per WETH: never.
    const guard = { maxPrice: { srcAmount: '1000000', destAmount: oneWeth.toString() } }
    const config = { ...baseConfig, budget: '100000000', checkIntervalSeconds: 15 }
    const before = await tokenBalances(s, account)
    const run = await startDcaBot(s, {
      accountIndex: 5,
      journalFile: directory.path('dca-guard.sqlite'),
      configs: {
        'dca-skip': { ...config, guard: { ...guard, action: 'skip' } },
        'dca-pause': { ...config, guard: { ...guard, action: 'pause' } },
      },
    })
    const skipped = await waitFor(
      () => {
        const schedule = scheduleIn(run.journal, 'dca-skip')
        return schedule?.finishedAt != null ? schedule : undefined
      },
      15_000,
      'skip schedule finished',
    )
    await run.bot.stop()

    expect(skipped.skipped.map((slot) => slot.slot)).toEqual([0, 1])
    expect(skipped.skipped[0]?.reason).toMatch(/above maxPrice/)
    expect(skipped.orders).toEqual([])
    const paused = scheduleIn(run.journal, 'dca-pause')
    expect(paused).toMatchObject({ nextSlot: 0, orders: [], skipped: [], finishedAt: null })
    expect(paused?.pausedSince).toEqual(expect.any(Number))
    expect(run.bot.stats().intentsQueued).toBe(0)
    expect(run.journal.listOrders()).toEqual([])
    expect(await tokenBalances(s, account)).toEqual(before)
    run.journal.close()
  }, 30_000)

  it('places a slot again after its pricing failed (a 5xx after the retries), spending the budget once', async () => {
    const s = sandbox()
    const account = sandboxWallet(s, 1, 6).account.address
    const budget = 100_000_000n
    // No guard: only the executor asks for Delta prices. Retries every 60 sandbox seconds, never skipped here.
    const config = {
      ...baseConfig,
      budget: budget.toString(),
      checkIntervalSeconds: 15,
      placementTimeoutSeconds: 3_600,
      retriesPerSlot: 50,
    }
    const before = await tokenBalances(s, account)
    const fault = await request(s.url, 'POST', '/_sandbox/faults', { route: 'GET /v2/delta/prices', status: 500 })
    expect(fault.status).toBe(200)
    const run = await startDcaBot(s, { accountIndex: 6, journalFile: directory.path('dca-failed.sqlite'), configs: { dca: config } })
    try {
      await waitFor(() => run.journal.intentsOf('dca').find((intent) => intent.status === 'failed'), 15_000, 'failed intent')
      expect((await request(s.url, 'DELETE', '/_sandbox/faults')).status).toBe(200)
      const finished = await waitFor(
        () => {
          const schedule = scheduleIn(run.journal, 'dca')
          return schedule?.finishedAt != null ? schedule : undefined
        },
        20_000,
        'finished schedule',
      )
      await run.bot.stop()

      const intents = run.journal.intentsOf('dca')
      const failed = intents.filter((intent) => intent.status === 'failed')
      expect(failed.length).toBeGreaterThanOrEqual(1)
      expect(intents).toHaveLength(failed.length + 2)
      const orders = run.journal.listOrders({ strategy: 'dca' })
      // One order per slot, each half the budget: the failed placements held none of it.
      expect(orders.map((order) => [order.status, order.srcAmount])).toEqual([
        ['COMPLETED', budget / 2n],
        ['COMPLETED', budget / 2n],
      ])
      expect(orders.map((order) => order.intentId)).not.toContain(failed[0]?.id)
      expect(finished.orders.filter((record) => record.phase === 'failed').map((record) => record.intentId)).toEqual(
        failed.map((intent) => intent.id),
      )
      expect(finished.orders.filter((record) => record.phase !== 'failed').map((record) => record.slot)).toEqual([0, 1])
      const fills = orders.flatMap((order) => run.journal.fillsOf(order.id))
      const received = fills.reduce((sum, fill) => sum + fill.receivedAmount, 0n)
      expect(fills.reduce((sum, fill) => sum + fill.spentAmount, 0n)).toBe(budget)
      const after = await tokenBalances(s, account)
      expect(before.usdc - after.usdc).toBe(budget)
      expect(after.weth - before.weth).toBe(received)
      expect(summarizeSchedule(finished, budget)).toMatchObject({
        committed: budget,
        spent: budget,
        ordersPlaced: 2,
        placementsFailed: failed.length,
        slotsSkipped: 0,
      })
    } finally {
      await request(s.url, 'DELETE', '/_sandbox/faults')
      if (run.bot.stats().running) await run.bot.stop()
      run.journal.close()
    }
  }, 45_000)

  it('spends in a later TWAP what an expired one left unfilled', async () => {
    const s = sandbox()
    const account = sandboxWallet(s, 1, 4).account.address
    const budget = 200_000_000n
    const slice = budget / 4n
    // A limit just above the agents' bids (they bid at least 1 bp under the pools) and within the Market quote: the
    // guard lets the first TWAP through and none of its slices fills.
    const route = await quoteMarket(s, {
      network: '1',
      srcToken: usdcAddress,
      destToken: wethAddress,
      amount: slice.toString(),
      side: 'SELL',
      srcDecimals: '6',
      destDecimals: '18',
    })
    const quoted = BigInt(route.destAmount)
    const pool = await poolQuote(s, 1, usdcAddress, wethAddress, slice, 'SELL')
    const limit = ((quoted < pool ? quoted : pool) * 999_980n) / 1_000_000n
    const config = {
      ...baseConfig,
      budget: budget.toString(),
      guard: { maxPrice: { srcAmount: slice.toString(), destAmount: limit.toString() }, action: 'pause' },
      checkIntervalSeconds: 15,
      placementTimeoutSeconds: 3_600,
    }
    const before = await tokenBalances(s, account)
    const run = await startDcaBot(s, { accountIndex: 4, journalFile: directory.path('dca-return.sqlite'), configs: { dca: config } })

    const expired = await waitFor(
      () => run.journal.listOrders({ strategy: 'dca' }).find((order) => order.status === 'EXPIRED'),
      15_000,
      'expired TWAP',
    )
    expect(run.journal.fillsOf(expired.id)).toEqual([])
    // WETH gets cheaper (another account sells 20 WETH into the pool): the second TWAP's slices fill at its limit.
    await swapOnPool(s, 1, 9, 'WETH', 'USDC', 20n * oneWeth)
    const finished = await waitFor(
      () => {
        const schedule = scheduleIn(run.journal, 'dca')
        return schedule?.finishedAt != null ? schedule : undefined
      },
      20_000,
      'finished schedule',
    )
    await run.bot.stop()

    const orders = run.journal.listOrders({ strategy: 'dca' })
    // The first TWAP's 100 USDC went back to the budget: the second one spends all 200.
    expect(orders.map((order) => [order.status, order.srcAmount])).toEqual([
      ['EXPIRED', budget / 2n],
      ['COMPLETED', budget],
    ])
    const fills = run.journal.fillsOf(orders[1]?.id ?? '')
    expect(fills).toHaveLength(2)
    for (const fill of fills) expect(fill.receivedAmount).toBeGreaterThanOrEqual(2n * limit)
    const received = fills.reduce((sum, fill) => sum + fill.receivedAmount, 0n)
    const after = await tokenBalances(s, account)
    expect(before.usdc - after.usdc).toBe(budget)
    expect(after.weth - before.weth).toBe(received)
    expect(summarizeSchedule(finished, budget)).toMatchObject({ committed: budget, spent: budget, received, ordersPlaced: 2 })
    run.journal.close()
  }, 45_000)
})
