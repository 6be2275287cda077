import { rmSync, writeFileSync } from 'node:fs'
import { type Address, parseEther, parseUnits } from 'viem'
import { afterAll, describe, expect, it } from 'vitest'
import type { DeltaPrice } from '../../src/api/delta/delta-price-schema.js'
import { getDeltaOrder } from '../../src/api/delta/get-delta-order.js'
import { getDeltaOrders } from '../../src/api/delta/get-delta-orders.js'
import type { MarketPriceRoute } from '../../src/api/market/price-route-schema.js'
import { createIntent } from '../../src/domain/intents/create-intent.js'
import type { Intent } from '../../src/domain/intents/intent-schema.js'
import { orderIdOf } from '../../src/domain/order-id.js'
import { createExecutor, type ExecutionOutcome } from '../../src/exec/executor/executor.js'
import type { ExecutorContext } from '../../src/exec/executor/executor-context.js'
import { priceImpactPercent } from '../../src/exec/executor/price-impact.js'
import { createKillSwitch, type KillSwitch } from '../../src/exec/risk/kill-switch.js'
import type { RiskLimitsInput } from '../../src/exec/risk/risk-limits-schema.js'
import { systemClock } from '../../src/time/clock.js'
import { sandboxExecutorContext } from '../helpers/executor.js'
import { sandboxToken } from '../helpers/otc.js'
import { useSandbox } from '../helpers/sandbox.js'
import { createTempDirectory } from '../helpers/temp-directory.js'

// Every risk limit refusing through the real executor: journaled with the limit and the numbers, nothing signed,
// nothing at the venue; budgets count accepted intents only; the kill switch cancels open Delta orders.

const directory = createTempDirectory('deltaflow-exec-')
afterAll(() => directory.cleanup())

const sandbox = useSandbox()
const opened: ExecutorContext[] = []
afterAll(() => {
  for (const context of opened) context.journal.close()
})

type Options = { limits?: RiskLimitsInput; killSwitch?: KillSwitch }

async function executorFor(accountIndex: number, journalName: string, options: Options = {}) {
  const context = await sandboxExecutorContext(sandbox(), {
    accountIndex,
    journalFile: directory.path(journalName),
    ...(options.limits === undefined ? {} : { limits: options.limits }),
    ...(options.killSwitch === undefined ? {} : { killSwitch: options.killSwitch }),
  })
  opened.push(context)
  return { context, executor: createExecutor(context) }
}

const usdc = (): Address => sandboxToken(sandbox(), 1, 'USDC')
const weth = (): Address => sandboxToken(sandbox(), 1, 'WETH')
const usdcKey = () => `1:${usdc().toLowerCase()}`

function swap(key: string, fields: Record<string, unknown> = {}): Intent {
  return createIntent({
    clock: systemClock,
    key,
    content: {
      strategy: 'risk',
      kind: 'swap',
      chainId: 1,
      srcToken: usdc(),
      destToken: weth(),
      amount: parseUnits('100', 6).toString(),
      side: 'SELL',
      maxSlippageBps: 100,
      maxPriceImpactPercent: 5,
      ...fields,
    },
  })
}

/** A LIMIT far above the market (1 WETH per 100 USDC): it stays open and never fills in a still sandbox. */
function restingLimit(key: string, usdcAmount: string, strategy = 'risk'): Intent {
  return createIntent({
    clock: systemClock,
    key,
    content: {
      strategy,
      kind: 'limit',
      chainId: 1,
      srcToken: usdc(),
      destToken: weth(),
      srcAmount: usdcAmount,
      destAmount: ((BigInt(usdcAmount) * parseEther('1')) / parseUnits('100', 6) + 1n).toString(),
      validitySeconds: 3600,
    },
  })
}

/** Refused by `limit` with the numbers in the reason, journaled, and nothing signed, sent or posted. */
async function expectRefused(context: ExecutorContext, outcome: ExecutionOutcome, limit: string, numbers: readonly string[]) {
  expect(outcome.status).toBe('refused')
  expect(outcome.order).toBeUndefined()
  const stored = context.journal.getIntent(outcome.intent.id)
  expect(stored).toMatchObject({ status: 'refused', refusalLimit: limit, spend: undefined })
  expect(stored?.refusalReason).toMatch(new RegExp(`^${limit}: `))
  for (const number of numbers) expect(stored?.refusalReason).toContain(number)
  expect(outcome.reason).toBe(stored?.refusalReason)
  expect(context.journal.getOrder({ id: orderIdOf(outcome.intent.id) })).toBeUndefined()
  expect(context.journal.getModeChoice(outcome.intent.id)).toBeUndefined()
}

/** Nothing of the account's was journaled, sent on chain 1 or submitted to the venue. */
async function expectNothingSigned(context: ExecutorContext) {
  expect(context.journal.listOrders()).toEqual([])
  expect(context.journal.transactionsFrom(context.account.address, 1)).toEqual([])
  expect((await getDeltaOrders(context.api, { userAddress: context.account.address })).total).toBe(0)
}

describe('executor kill switch', () => {
  it('refuses every intent while the kill-switch file exists', async () => {
    const file = directory.path('STOP')
    writeFileSync(file, '')
    const killSwitch = createKillSwitch({ file })
    const { context, executor } = await executorFor(3, 'kill-file.sqlite', { killSwitch })
    const outcome = await executor.execute(swap('kill-file'))
    await expectRefused(context, outcome, 'killSwitch', [`kill-switch file ${file} exists`])
    await expectNothingSigned(context)
    rmSync(file)
    // The refusal stands for that intent: repeating it does not retry it.
    expect((await executor.execute(swap('kill-file'))).status).toBe('refused')
    expect(killSwitch.isTripped()).toBe(false)
  })

  it('refuses every intent kind once tripped by hand, until reset', async () => {
    const killSwitch = createKillSwitch()
    killSwitch.trip('operator stop at 03:00')
    const { context, executor } = await executorFor(3, 'kill-trip.sqlite', { killSwitch })
    await expectRefused(context, await executor.execute(swap('kill-trip')), 'killSwitch', ['operator stop at 03:00'])
    await expectRefused(context, await executor.execute(restingLimit('kill-trip-limit', '100000000')), 'killSwitch', [
      'operator stop at 03:00',
    ])
    await expectNothingSigned(context)
    expect(await executor.enforceKillSwitch()).toEqual([])
  })
})

describe('executor price limits', () => {
  it('refuses an intent allowing more slippage than maxSlippageBps', async () => {
    const { context, executor } = await executorFor(3, 'slippage.sqlite', { limits: { maxSlippageBps: 50 } })
    const outcome = await executor.execute(swap('slippage', { maxSlippageBps: 120 }))
    await expectRefused(context, outcome, 'maxSlippage', ['120 bps', 'limit of 50 bps'])
    await expectNothingSigned(context)
  })

  it('refuses an intent allowing more price impact than maxPriceImpactPercent', async () => {
    const { context, executor } = await executorFor(3, 'impact-limit.sqlite', { limits: { maxPriceImpactPercent: 2 } })
    const outcome = await executor.execute(swap('impact-limit', { maxPriceImpactPercent: 3.5 }))
    await expectRefused(context, outcome, 'maxPriceImpact', ['3.5 %', 'limit of 2 %'])
    await expectNothingSigned(context)
  })

  it("refuses a swap whose quote moves the price more than the intent's own maxPriceImpactPercent", async () => {
    const { context, executor } = await executorFor(3, 'impact-quote.sqlite')
    // 900,000 USDC into pools about 10 M USDC deep: several percent of impact.
    const outcome = await executor.execute(swap('impact-quote', { amount: parseUnits('900000', 6).toString(), maxPriceImpactPercent: 1 }))
    await expectRefused(context, outcome, 'maxPriceImpact', ['above the allowed 1 %'])
    const quoted = Number(/price impact is ([\d.e-]+) %/.exec(outcome.reason ?? '')?.[1])
    expect(quoted).toBeGreaterThan(1)
    expect(quoted).toBeLessThan(50)
    await expectNothingSigned(context)
  })

  it('accepts a small trade under the same maxPriceImpactPercent', async () => {
    const { context, executor } = await executorFor(9, 'impact-ok.sqlite')
    const small = await executor.execute(swap('impact-ok', { mode: 'market', maxSlippageBps: 50, maxPriceImpactPercent: 1 }))
    expect(small.status, small.reason).toBe('accepted')
    expect(context.journal.listOrders()).toHaveLength(1)
  })
})

describe('executor trade size', () => {
  it('refuses a trade, and a TWAP slice, below the minTradeSize of its source token', async () => {
    const limits: RiskLimitsInput = { tokens: { [usdcKey()]: { minTradeSize: parseUnits('500', 6).toString() } } }
    const { context, executor } = await executorFor(3, 'min-size.sqlite', { limits })
    await expectRefused(context, await executor.execute(swap('min-size')), 'minTradeSize', ['100000000 raw units', 'minimum of 500000000'])
    const twap = createIntent({
      clock: systemClock,
      key: 'min-size-twap',
      content: {
        strategy: 'risk',
        kind: 'twap-sell',
        chainId: 1,
        srcToken: usdc(),
        destToken: weth(),
        totalSrcAmount: parseUnits('900', 6).toString(),
        numSlices: 3,
        intervalSeconds: 600,
        maxSlippageBps: 100,
        maxPriceImpactPercent: 5,
      },
    })
    await expectRefused(context, await executor.execute(twap), 'minTradeSize', [
      '300000000 raw units',
      '(one TWAP slice)',
      'minimum of 500000000',
    ])
    await expectNothingSigned(context)
  })
})

describe('executor budgets of a BUY', () => {
  it("counts a BUY swap's quoted source plus its slippage against dailyBudget", async () => {
    const limits: RiskLimitsInput = { tokens: { [usdcKey()]: { dailyBudget: parseUnits('500', 6).toString() } } }
    const { context, executor } = await executorFor(8, 'daily-buy.sqlite', { limits })
    // 0.5 WETH costs about 980 USDC: the budget is known to be exceeded only once priced.
    const outcome = await executor.execute(swap('daily-buy', { side: 'BUY', amount: parseEther('0.5').toString() }))
    await expectRefused(context, outcome, 'dailyBudget', ['daily budget of 500000000 (500000000 left)'])
    const spend = BigInt(/spending (\d+) raw units/.exec(outcome.reason ?? '')?.[1] ?? '0')
    expect(spend).toBeGreaterThan(parseUnits('900', 6))
    expect(spend).toBeLessThan(parseUnits('1100', 6))
    await expectNothingSigned(context)
  })
})

describe('priceImpactPercent', () => {
  const delta = (input: string, output: string) =>
    ({ route: { origin: { input: { amountUSD: input } }, destination: { output: { amountUSD: output } } } }) as unknown as DeltaPrice
  const market = (input: string, output: string) => ({ srcUSD: input, destUSD: output }) as unknown as MarketPriceRoute

  it('is the share of the input value lost on the way to the output', () => {
    expect(priceImpactPercent({ delta: delta('1000', '950') })).toBeCloseTo(5, 10)
    expect(priceImpactPercent({ market: market('200', '199') })).toBeCloseTo(0.5, 10)
    expect(priceImpactPercent({ market: market('100', '101') })).toBe(0)
  })

  it('is unknown when either USD value is missing or zero', () => {
    expect(priceImpactPercent({ delta: delta('1000', '0') })).toBeUndefined()
    expect(priceImpactPercent({ delta: delta('1000', '') })).toBeUndefined()
    expect(priceImpactPercent({ market: market('0', '10') })).toBeUndefined()
    expect(priceImpactPercent({ market: market('n/a', '10') })).toBeUndefined()
  })
})

describe('executor TWAP buy price guard', () => {
  it('refuses a TWAP buy whose quoted slice costs more than maxSrcAmountPerSlice', async () => {
    const { context, executor } = await executorFor(8, 'price-guard.sqlite')
    const intent = createIntent({
      clock: systemClock,
      key: 'price-guard',
      content: {
        strategy: 'risk',
        kind: 'twap-buy',
        chainId: 1,
        srcToken: usdc(),
        destToken: weth(),
        totalDestAmount: parseEther('0.2').toString(),
        maxSrcAmount: parseUnits('600', 6).toString(),
        maxSrcAmountPerSlice: parseUnits('50', 6).toString(),
        numSlices: 2,
        intervalSeconds: 600,
        maxSlippageBps: 100,
        maxPriceImpactPercent: 5,
      },
    })
    const outcome = await executor.execute(intent)
    expect(outcome.status).toBe('refused')
    expect(context.journal.getIntent(intent.id)).toMatchObject({ status: 'refused', refusalLimit: 'priceGuard' })
    expect(outcome.reason).toContain('above maxSrcAmountPerSlice 50000000')
    const sliceCost = BigInt(/a slice costs (\d+) raw units/.exec(outcome.reason ?? '')?.[1] ?? '0')
    expect(sliceCost).toBeGreaterThan(parseUnits('150', 6))
    await expectNothingSigned(context)
  })
})

describe('executor open orders', () => {
  it('refuses a LIMIT beyond maxOpenOrdersPerStrategy while the first is open; other strategies are counted apart', async () => {
    const { context, executor } = await executorFor(4, 'open-orders.sqlite', { limits: { maxOpenOrdersPerStrategy: 1 } })
    const first = await executor.execute(restingLimit('open-1', parseUnits('100', 6).toString()))
    expect(first.status, first.reason).toBe('accepted')
    expect(first.order?.submitted).toBe(true)
    const second = await executor.execute(restingLimit('open-2', parseUnits('100', 6).toString()))
    await expectRefused(context, second, 'maxOpenOrders', ['"risk" has 1 open orders', 'limit of 1'])
    const other = await executor.execute(restingLimit('open-3', parseUnits('100', 6).toString(), 'other'))
    expect(other.status, other.reason).toBe('accepted')
    expect(context.journal.listOrders()).toHaveLength(2)
    expect((await getDeltaOrders(context.api, { userAddress: context.account.address })).total).toBe(2)
  })
})

describe('executor budgets', () => {
  it("refuses an intent that would take the day's spend above dailyBudget", async () => {
    const limits: RiskLimitsInput = { tokens: { [usdcKey()]: { dailyBudget: parseUnits('1500', 6).toString() } } }
    const { context, executor } = await executorFor(5, 'daily.sqlite', { limits })
    const first = await executor.execute(restingLimit('daily-1', parseUnits('1000', 6).toString()))
    expect(first.status, first.reason).toBe('accepted')
    const second = await executor.execute(restingLimit('daily-2', parseUnits('1000', 6).toString()))
    await expectRefused(context, second, 'dailyBudget', [
      'spending 1000000000 raw units',
      "the day's total to 2000000000",
      'daily budget of 1500000000 (500000000 left)',
    ])
    expect(context.journal.listOrders()).toHaveLength(1)
  })

  it('counts accepted intents against totalBudget and not refused ones', async () => {
    const limits: RiskLimitsInput = { maxSlippageBps: 100, tokens: { [usdcKey()]: { totalBudget: parseUnits('2500', 6).toString() } } }
    const { context, executor } = await executorFor(6, 'total.sqlite', { limits })
    const spent = () => context.journal.riskUsage().tokens[usdcKey()]?.spentTotal ?? 0n

    expect((await executor.execute(restingLimit('total-1', parseUnits('1000', 6).toString()))).status).toBe('accepted')
    expect(spent()).toBe(parseUnits('1000', 6))
    const tooMuch = await executor.execute(restingLimit('total-2', parseUnits('2000', 6).toString()))
    await expectRefused(context, tooMuch, 'totalBudget', ['total spent to 3000000000', 'total budget of 2500000000 (1500000000 left)'])
    // Refused by another limit: its 1,000 USDC never counts either.
    await expectRefused(context, await executor.execute(swap('total-slippage', { maxSlippageBps: 300 })), 'maxSlippage', ['300 bps'])
    expect(spent()).toBe(parseUnits('1000', 6))

    const rest = await executor.execute(restingLimit('total-3', parseUnits('1500', 6).toString()))
    expect(rest.status, rest.reason).toBe('accepted')
    expect(spent()).toBe(parseUnits('2500', 6))
    const oneMore = await executor.execute(restingLimit('total-4', '1'))
    await expectRefused(context, oneMore, 'totalBudget', ['total spent to 2500000001', '(0 left)'])
    expect(context.journal.listOrders()).toHaveLength(2)
  })
})

describe('executor enforceKillSwitch', () => {
  it('cancels every open Delta order once the switch is tripped with cancelOpenOrders', async () => {
    const killSwitch = createKillSwitch({ cancelOpenOrders: true })
    const { context, executor } = await executorFor(7, 'enforce.sqlite', { killSwitch })
    const placed = [
      await executor.execute(restingLimit('enforce-1', parseUnits('100', 6).toString())),
      await executor.execute(restingLimit('enforce-2', parseUnits('200', 6).toString())),
    ]
    for (const outcome of placed) expect(outcome.status, outcome.reason).toBe('accepted')
    expect(await executor.enforceKillSwitch()).toEqual([])

    killSwitch.trip('drawdown alarm')
    const outcomes = await executor.enforceKillSwitch()
    expect(outcomes.map((outcome) => outcome.outcome)).toEqual(['requested', 'requested'])
    expect(outcomes.map((outcome) => outcome.orderId).sort()).toEqual(placed.map((outcome) => outcome.order?.id).sort())
    for (const outcome of placed) {
      const venue = await getDeltaOrder(context.api, { orderId: outcome.order?.venueId as string })
      expect(['CANCELLING', 'CANCELLED']).toContain(venue.status)
    }
    await expectRefused(context, await executor.execute(restingLimit('enforce-3', parseUnits('100', 6).toString())), 'killSwitch', [
      'drawdown alarm',
    ])
  })
})
