import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { parseIntent } from '../../src/domain/intents/parse-intent.js'
import { emptyRiskUsage, recordSpend, utcDay } from '../../src/domain/risk-usage.js'
import { checkRiskLimits } from '../../src/exec/risk/check-risk-limits.js'
import { intentSpend } from '../../src/exec/risk/intent-spend.js'
import { riskLimitsSchema, tokenKey } from '../../src/exec/risk/risk-limits-schema.js'

const usdc = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48'
const weth = '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2'
const start = Date.parse('2026-11-21T20:00:00Z')
const hour = 3_600_000

describe('budgets', () => {
  it('never let the accepted intents of a day or of all time exceed the budgets', () => {
    const step = fc.record({
      amount: fc.bigInt({ min: 1n, max: 600n }),
      side: fc.constantFrom('SELL', 'BUY'),
      quoted: fc.bigInt({ min: 1n, max: 600n }),
      slippageBps: fc.integer({ min: 0, max: 100 }),
      hoursLater: fc.integer({ min: 0, max: 8 }),
      twapSlices: fc.option(fc.integer({ min: 2, max: 5 }), { nil: undefined }),
    })
    const scenario = fc.record({
      dailyBudget: fc.bigInt({ min: 0n, max: 2000n }),
      totalBudget: fc.bigInt({ min: 0n, max: 6000n }),
      steps: fc.array(step, { maxLength: 40 }),
    })
    fc.assert(
      fc.property(scenario, ({ dailyBudget, totalBudget, steps }) => {
        const limits = riskLimitsSchema.parse({ tokens: { [`1:${usdc}`]: { dailyBudget, totalBudget } } })
        const token = tokenKey(1, usdc)
        let usage = emptyRiskUsage
        let now = start
        const acceptedByDay = new Map<string, bigint>()
        let acceptedTotal = 0n
        for (const [index, { amount, side, quoted, slippageBps, hoursLater, twapSlices }] of steps.entries()) {
          now += hoursLater * hour
          const common = {
            strategy: 's',
            id: `i-${index}`,
            createdAt: now,
            chainId: 1,
            srcToken: usdc,
            destToken: weth,
            maxSlippageBps: slippageBps,
            maxPriceImpactPercent: 5,
          }
          const intent =
            twapSlices === undefined
              ? parseIntent({ ...common, kind: 'swap', amount, side })
              : parseIntent({
                  ...common,
                  kind: 'twap-sell',
                  totalSrcAmount: amount + BigInt(twapSlices),
                  numSlices: twapSlices,
                  intervalSeconds: 60,
                })
          const quote = { srcAmount: quoted }
          if (!checkRiskLimits({ intent, limits, usage, now, quote }).allowed) continue
          const spend = intentSpend(intent, quote)
          if (spend === undefined || 'quoteRequired' in spend) throw new Error('an allowed trade has a known spend')
          usage = recordSpend(usage, { token, amount: spend.amount, now })
          acceptedByDay.set(utcDay(now), (acceptedByDay.get(utcDay(now)) ?? 0n) + spend.amount)
          acceptedTotal += spend.amount
        }
        for (const spent of acceptedByDay.values()) expect(spent).toBeLessThanOrEqual(dailyBudget)
        expect(acceptedTotal).toBeLessThanOrEqual(totalBudget)
        expect(usage.tokens[token]?.spentTotal ?? 0n).toBe(acceptedTotal)
      }),
    )
  })

  it('accept an intent that exactly uses up what is left of the day', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 1n, max: 10n ** 24n }), fc.bigInt({ min: 0n, max: 10n ** 24n }), (budget, spentSeed) => {
        const spent = spentSeed % budget
        const limits = riskLimitsSchema.parse({ tokens: { [`1:${usdc}`]: { dailyBudget: budget } } })
        const usage = recordSpend(emptyRiskUsage, { token: tokenKey(1, usdc), amount: spent, now: start })
        const intent = (amount: bigint) =>
          parseIntent({
            strategy: 's',
            id: 'i',
            createdAt: start,
            kind: 'limit',
            chainId: 1,
            srcToken: usdc,
            destToken: weth,
            srcAmount: amount,
            destAmount: 1n,
            validitySeconds: 60,
          })
        expect(checkRiskLimits({ intent: intent(budget - spent), limits, usage, now: start }).allowed).toBe(true)
        expect(checkRiskLimits({ intent: intent(budget - spent + 1n), limits, usage, now: start }).allowed).toBe(false)
      }),
    )
  })
})
