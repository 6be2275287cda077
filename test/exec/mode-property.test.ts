import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { chooseMode, type ExecutionMode } from '../../src/exec/mode/choose-mode.js'
import type { Side } from '../../src/exec/mode/net-amounts.js'

// Quotes where the variable side's amount is the only difference, without fees or gas: net = gross.
function quotes(side: Side, deltaAmount: bigint, marketAmount: bigint) {
  const fixed = 10n ** 18n
  const [deltaSrc, deltaDest] = side === 'SELL' ? [fixed, deltaAmount] : [deltaAmount, fixed]
  const [marketSrc, marketDest] = side === 'SELL' ? [fixed, marketAmount] : [marketAmount, fixed]
  return {
    delta: {
      price: {
        route: { origin: { input: { amount: deltaSrc } }, destination: { output: { amount: deltaDest } } },
        partner: { feePercent: 0 },
      },
    },
    market: {
      route: { srcAmount: marketSrc, destAmount: marketDest, gasCost: 0n, gasCostUSD: '0', srcUSD: '1', destUSD: '1', partnerFee: 0 },
    },
  }
}

const other = (mode: ExecutionMode): ExecutionMode => (mode === 'delta' ? 'market' : 'delta')
const amount = fc.bigInt({ min: 1n, max: 10n ** 30n })
const side = fc.constantFrom<Side>('SELL', 'BUY')
const preferred = fc.constantFrom<ExecutionMode>('delta', 'market')
const margin = fc.integer({ min: 0, max: 500 })

describe('chooseMode (properties)', () => {
  it('is symmetric: swapping the two quotes and the preference swaps the choice', () => {
    fc.assert(
      fc.property(side, amount, amount, preferred, margin, (s, a, b, mode, marginBps) => {
        const first = quotes(s, a, b)
        const swapped = quotes(s, b, a)
        const chosen = chooseMode({ side: s, ...first, preference: { mode, marginBps } }).mode
        const mirrored = chooseMode({ side: s, ...swapped, preference: { mode: other(mode), marginBps } }).mode
        expect(chosen).toBeDefined()
        expect(mirrored).toBe(other(chosen ?? 'delta'))
      }),
    )
  })

  it("is monotonic: improving a mode's amount never makes it lose", () => {
    fc.assert(
      fc.property(side, amount, amount, amount, preferred, margin, (s, deltaAmount, marketAmount, improvement, mode, marginBps) => {
        const preference = { mode, marginBps }
        // Better means more output for SELL, less input for BUY.
        const improve = (value: bigint) => (s === 'SELL' ? value + improvement : value > improvement ? value - improvement : 1n)
        const before = chooseMode({ side: s, ...quotes(s, deltaAmount, marketAmount), preference }).mode
        const deltaImproved = chooseMode({ side: s, ...quotes(s, improve(deltaAmount), marketAmount), preference }).mode
        const marketImproved = chooseMode({ side: s, ...quotes(s, deltaAmount, improve(marketAmount)), preference }).mode
        if (before === 'delta') expect(deltaImproved).toBe('delta')
        if (before === 'market') expect(marketImproved).toBe('market')
      }),
    )
  })

  it('picks the better net amount when the margin is zero and they differ', () => {
    fc.assert(
      fc.property(side, amount, amount, preferred, (s, a, b, mode) => {
        fc.pre(a !== b)
        const chosen = chooseMode({ side: s, ...quotes(s, a, b), preference: { mode, marginBps: 0 } }).mode
        const deltaBetter = s === 'SELL' ? a > b : a < b
        expect(chosen).toBe(deltaBetter ? 'delta' : 'market')
      }),
    )
  })
})
