import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { limitCrossed, limitRateOf, ownRateOf, rateBelowLimitRate } from '../../src/backtest/limit-crossing.js'

/** The definition, in bigints only. */
function exactlyCrossed(
  maxSrc: bigint,
  minDest: bigint,
  size: bigint,
  destAmount: bigint,
  recorded: bigint,
  side: 'SELL' | 'BUY',
  margin: bigint,
) {
  const dest = side === 'SELL' ? (destAmount * size) / recorded : size
  return dest * maxSrc * 1_000_000n >= minDest * size * (1_000_000n + margin)
}

const quoteOf = (destAmount: bigint, recorded: bigint) =>
  ({ destAmount, destNumber: Number(destAmount), amountNumber: Number(recorded), request: { request: { amount: recorded } } }) as never

const amount = (digits: number) => fc.bigInt({ min: 1n, max: 10n ** BigInt(digits) })

describe('limitCrossed', () => {
  it('answers as the bigint definition for amounts of any size (1 to 10^40 units)', () => {
    fc.assert(
      fc.property(
        amount(40),
        amount(40),
        amount(40),
        amount(40),
        amount(40),
        fc.constantFrom<'SELL' | 'BUY'>('SELL', 'BUY'),
        fc.bigInt({ min: 0n, max: 10_000n }),
        (maxSrc, minDest, size, destAmount, recorded, side, margin) => {
          const order = { maxSrc, minDest }
          expect(limitCrossed(order, size, quoteOf(destAmount, recorded), side, margin)).toBe(
            exactlyCrossed(maxSrc, minDest, size, destAmount, recorded, side, margin),
          )
        },
      ),
      { numRuns: 2_000, seed: 42 },
    )
  })

  it('answers as the definition at the limit itself and one unit either side of it (where floats cannot tell)', () => {
    let crossed = 0
    let notCrossed = 0
    fc.assert(
      fc.property(
        amount(30),
        amount(30),
        amount(30),
        fc.bigInt({ min: 0n, max: 500n }),
        fc.bigInt({ min: -1n, max: 1n }),
        (maxSrc, size, recorded, margin, shift) => {
          // A quote whose scaled dest is large, and the order's minDest set where the two sides meet, then nudged by a unit.
          const destAmount = recorded * 3_000n + 7n
          const dest = (destAmount * size) / recorded
          const atLimit = (dest * maxSrc * 1_000_000n) / (size * (1_000_000n + margin))
          const minDest = atLimit + shift > 0n ? atLimit + shift : 1n
          const expected = exactlyCrossed(maxSrc, minDest, size, destAmount, recorded, 'SELL', margin)
          if (expected) crossed++
          else notCrossed++
          expect(limitCrossed({ maxSrc, minDest }, size, quoteOf(destAmount, recorded), 'SELL', margin)).toBe(expected)
        },
      ),
      { numRuns: 3_000, seed: 7 },
    )
    // Both answers were met at the boundary.
    expect(crossed).toBeGreaterThan(500)
    expect(notCrossed).toBeGreaterThan(500)
  })

  it('is exact for scaled amounts of a few units, where rounding down decides', () => {
    // 1.5 units scaled down to 1: a float comparison would take 1.5 and cross; the order does not.
    const quote = quoteOf(3n, 2n)
    expect(limitCrossed({ maxSrc: 1n, minDest: 1n }, 1n, quote, 'SELL', 0n)).toBe(true)
    expect(limitCrossed({ maxSrc: 2n, minDest: 3n }, 2n, quote, 'SELL', 0n)).toBe(true)
    expect(limitCrossed({ maxSrc: 1n, minDest: 2n }, 1n, quote, 'SELL', 0n)).toBe(false)
    expect(exactlyCrossed(1n, 2n, 1n, 3n, 2n, 'SELL', 0n)).toBe(false)
    // 0.9 of a unit scaled down to nothing: floats would see a price a million times the limit.
    expect(limitCrossed({ maxSrc: 1_000_000n, minDest: 1n }, 1n, quoteOf(9n, 10n), 'SELL', 0n)).toBe(false)
  })
})

describe("rateBelowLimitRate of a quote's ownRateOf", () => {
  it('is true only when no size scaled from the quote crosses the limit, near the limit rate (by units and by parts per billion)', () => {
    let below = 0
    let reachable = 0
    fc.assert(
      fc.property(
        amount(30),
        amount(30),
        fc.bigInt({ min: 0n, max: 500n }),
        fc.bigInt({ min: -2n, max: 2n }),
        fc.bigInt({ min: -10n, max: 10n }),
        fc.array(amount(30), { minLength: 1, maxLength: 6 }),
        (maxSrc, recorded, margin, shift, partsPerBillion, sizes) => {
          // minDest where the quote's own rate meets the limit's, then nudged by up to two units and ten billionths.
          const destAmount = recorded * 2_500n + 11n
          const atLimit = (destAmount * maxSrc * 1_000_000n) / (recorded * (1_000_000n + margin))
          const nudged = atLimit + shift + (atLimit * partsPerBillion) / 1_000_000_000n
          const minDest = nudged > 0n ? nudged : 1n
          const quote = quoteOf(destAmount, recorded)
          if (!rateBelowLimitRate(limitRateOf({ maxSrc, minDest }, margin), ownRateOf(quote))) {
            reachable++
            return
          }
          below++
          for (const size of [...sizes, recorded, maxSrc]) {
            expect(exactlyCrossed(maxSrc, minDest, size, destAmount, recorded, 'SELL', margin)).toBe(false)
          }
        },
      ),
      { numRuns: 3_000, seed: 11 },
    )
    // Orders were told apart on both sides of the limit rate.
    expect(below).toBeGreaterThan(300)
    expect(reachable).toBeGreaterThan(300)
  })

  it('rules out an order whose limit is beyond every size, and keeps one that a size crosses', () => {
    // 2,000 units per unit recorded; a limit of 2,100 per unit is out of reach, 1,900 is crossed at once.
    const quote = quoteOf(2_000_000n, 1_000n)
    expect(rateBelowLimitRate(limitRateOf({ maxSrc: 10n, minDest: 21_000n }, 0n), ownRateOf(quote))).toBe(true)
    expect(rateBelowLimitRate(limitRateOf({ maxSrc: 10n, minDest: 19_000n }, 0n), ownRateOf(quote))).toBe(false)
    expect(limitCrossed({ maxSrc: 10n, minDest: 19_000n }, 10n, quote, 'SELL', 0n)).toBe(true)
    // The margin raises the limit: 1,990 per unit with a 1 % margin asks 2,009.9.
    expect(rateBelowLimitRate(limitRateOf({ maxSrc: 10n, minDest: 19_900n }, 10_000n), ownRateOf(quote))).toBe(true)
    // A quote of size 0 prices nothing.
    expect(rateBelowLimitRate(limitRateOf({ maxSrc: 10n, minDest: 1n }, 0n), ownRateOf(quoteOf(5n, 0n)))).toBe(true)
  })
})
