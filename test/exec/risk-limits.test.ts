import { describe, expect, it } from 'vitest'
import type { Intent } from '../../src/domain/intents/intent-schema.js'
import { parseIntent } from '../../src/domain/intents/parse-intent.js'
import { emptyRiskUsage, type RiskUsage } from '../../src/domain/risk-usage.js'
import { checkRiskLimits } from '../../src/exec/risk/check-risk-limits.js'
import { createKillSwitch } from '../../src/exec/risk/kill-switch.js'
import { riskLimitsSchema, tokenKey } from '../../src/exec/risk/risk-limits-schema.js'

const usdc = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48'
const weth = '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2'
const usdcKey = tokenKey(1, usdc)
const now = Date.parse('2026-11-21T15:00:00Z')

const limits = riskLimitsSchema.parse({
  tokens: { [`1:${usdc}`]: { dailyBudget: '1000', totalBudget: '5000', minTradeSize: '10' } },
  maxSlippageBps: 100,
  maxPriceImpactPercent: 3,
  maxOpenOrdersPerStrategy: 2,
})

function swap(overrides: Record<string, unknown> = {}): Intent {
  return parseIntent({
    strategy: 'dca',
    id: 'i-1',
    createdAt: now,
    kind: 'swap',
    chainId: 1,
    srcToken: usdc,
    destToken: weth,
    amount: '100',
    side: 'SELL',
    maxSlippageBps: 50,
    maxPriceImpactPercent: 2,
    ...overrides,
  })
}

function usageOf(spentToday: bigint, spentTotal: bigint, openOrders = 0): RiskUsage {
  return {
    tokens: { [usdcKey]: { spentByUtcDay: { '2026-11-21': spentToday, '2026-11-20': 999n }, spentTotal } },
    openOrdersByStrategy: { dca: openOrders },
  }
}

describe('checkRiskLimits', () => {
  it('allows an intent within every limit', () => {
    expect(checkRiskLimits({ intent: swap(), limits, usage: usageOf(900n, 4000n, 1), now })).toEqual({ allowed: true })
  })

  it('refuses every new intent while the kill switch is tripped', () => {
    const killSwitch = createKillSwitch()
    killSwitch.trip('operator stop')
    const result = checkRiskLimits({ intent: swap(), limits, usage: emptyRiskUsage, now, killSwitch })
    expect(result).toMatchObject({ allowed: false, limit: 'killSwitch', reason: expect.stringContaining('operator stop') })
  })

  it('allows a cancel while the kill switch is tripped', () => {
    const killSwitch = createKillSwitch()
    killSwitch.trip('operator stop')
    const cancel = parseIntent({ strategy: 'dca', id: 'c-1', createdAt: now, kind: 'cancel', orderIds: ['o-1'] })
    expect(checkRiskLimits({ intent: cancel, limits, usage: emptyRiskUsage, now, killSwitch })).toEqual({ allowed: true })
  })

  it('refuses slippage above the limit, saying the numbers and what to change', () => {
    const result = checkRiskLimits({ intent: swap({ maxSlippageBps: 250 }), limits, usage: emptyRiskUsage, now })
    expect(result).toEqual({
      allowed: false,
      limit: 'maxSlippage',
      reason:
        'maxSlippage: intent allows 250 bps slippage, above the limit of 100 bps; to proceed: lower maxSlippageBps of strategy "dca" to at most 100, or raise risk.maxSlippageBps',
      numbers: { intentBps: 250, limitBps: 100 },
    })
  })

  it('refuses a price impact allowance above the limit', () => {
    const result = checkRiskLimits({ intent: swap({ maxPriceImpactPercent: 10 }), limits, usage: emptyRiskUsage, now })
    expect(result).toMatchObject({ allowed: false, limit: 'maxPriceImpact', numbers: { intentPercent: 10, limitPercent: 3 } })
  })

  it("refuses a quote whose price impact exceeds the intent's allowance", () => {
    const result = checkRiskLimits({ intent: swap(), limits, usage: emptyRiskUsage, now, quote: { priceImpactPercent: 2.5 } })
    expect(result).toMatchObject({
      allowed: false,
      limit: 'maxPriceImpact',
      reason: expect.stringContaining('price impact is 2.5 %, above the allowed 2 %'),
    })
  })

  it('refuses a trade below the minimum trade size of its token', () => {
    const result = checkRiskLimits({ intent: swap({ amount: '9' }), limits, usage: emptyRiskUsage, now })
    expect(result).toMatchObject({ allowed: false, limit: 'minTradeSize', numbers: { tradeAmount: '9', minimum: '10' } })
    expect(result.allowed === false && result.reason).toContain('trade at least 10 raw units')
  })

  it('applies the minimum trade size to each TWAP slice', () => {
    const twap = parseIntent({
      strategy: 'dca',
      id: 't-1',
      createdAt: now,
      kind: 'twap-sell',
      chainId: 1,
      srcToken: usdc,
      destToken: weth,
      totalSrcAmount: '50',
      numSlices: 6,
      intervalSeconds: 60,
      maxSlippageBps: 50,
      maxPriceImpactPercent: 2,
    })
    expect(checkRiskLimits({ intent: twap, limits, usage: emptyRiskUsage, now })).toMatchObject({
      limit: 'minTradeSize',
      numbers: { tradeAmount: '8' },
    })
  })

  it('refuses an order beyond the open orders allowed per strategy', () => {
    const result = checkRiskLimits({ intent: swap(), limits, usage: usageOf(0n, 0n, 2), now })
    expect(result).toMatchObject({ allowed: false, limit: 'maxOpenOrders', numbers: { strategy: 'dca', openOrders: 2, limit: 2 } })
  })

  it("refuses spending beyond the token's daily budget of the clock's UTC day", () => {
    const result = checkRiskLimits({ intent: swap({ amount: '101' }), limits, usage: usageOf(900n, 900n), now })
    expect(result).toMatchObject({
      allowed: false,
      limit: 'dailyBudget',
      numbers: { day: '2026-11-21', amount: '101', spentToday: '900', dailyBudget: '1000' },
    })
    expect(result.allowed === false && result.reason).toContain('trade at most 100 raw units today')
  })

  it("does not count yesterday's spending against today's budget", () => {
    const usage = usageOf(900n, 900n)
    const tomorrow = Date.parse('2026-11-22T00:00:00Z')
    expect(checkRiskLimits({ intent: swap({ amount: '1000' }), limits, usage, now: tomorrow })).toEqual({ allowed: true })
  })

  it("refuses spending beyond the token's total budget", () => {
    const result = checkRiskLimits({ intent: swap({ amount: '200' }), limits, usage: usageOf(0n, 4900n), now })
    expect(result).toMatchObject({ allowed: false, limit: 'totalBudget', numbers: { spentTotal: '4900', totalBudget: '5000' } })
  })

  it("counts a BUY's quoted source plus its slippage allowance against the budget", () => {
    const buy = swap({ side: 'BUY', amount: '1', maxSlippageBps: 100 })
    expect(checkRiskLimits({ intent: buy, limits, usage: usageOf(0n, 0n), now, quote: { srcAmount: 990n } })).toEqual({ allowed: true })
    expect(checkRiskLimits({ intent: buy, limits, usage: usageOf(0n, 0n), now, quote: { srcAmount: 991n } })).toMatchObject({
      limit: 'dailyBudget',
      numbers: { amount: '1001' },
    })
  })

  it('refuses a BUY whose source amount is not known from a quote', () => {
    const result = checkRiskLimits({ intent: swap({ side: 'BUY' }), limits, usage: emptyRiskUsage, now })
    expect(result).toMatchObject({ allowed: false, limit: 'quoteRequired' })
  })
})

describe('riskLimitsSchema', () => {
  it('normalises token keys to chainId:lowercase address', () => {
    expect(Object.keys(limits.tokens)).toEqual([`1:${usdc.toLowerCase()}`])
    expect(limits.tokens[usdcKey]?.dailyBudget).toBe(1000n)
  })

  it('refuses a malformed token key and a fractional amount, naming them', () => {
    const result = riskLimitsSchema.safeParse({ tokens: { usdc: { dailyBudget: '1' }, [`1:${weth}`]: { dailyBudget: '1.5' } } })
    expect(result.success).toBe(false)
    const paths = result.error?.issues.map((issue) => issue.path.join('.'))
    expect(paths).toEqual(expect.arrayContaining(['tokens.usdc', `tokens.1:${weth}.dailyBudget`]))
  })
})
