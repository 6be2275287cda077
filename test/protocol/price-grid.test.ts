import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  fillFromGrid,
  type GridFillRequest,
  isGridCrossed,
  type PriceGrid,
  type PriceLevel,
  parseDecimal,
} from '../../src/protocol/price-grid.js'

/** `units / 10^scale` as a decimal string. */
function decimalText(units: bigint, scale: number): string {
  const digits = units.toString().padStart(scale + 1, '0')
  return scale === 0 ? digits : `${digits.slice(0, -scale)}.${digits.slice(-scale)}`
}

const priceScale = 4
const sizeArbitrary = fc
  .tuple(fc.bigInt({ min: 1n, max: 10n ** 9n }), fc.integer({ min: 0, max: 6 }))
  .map(([units, scale]) => decimalText(units, scale))
const stepsArbitrary = fc.array(fc.bigInt({ min: 1n, max: 1_000n }), { minLength: 1, maxLength: 5 })

/** An uncrossed grid, best level first, prices at 4 decimals around a mid. */
const gridArbitrary: fc.Arbitrary<{ bids: PriceLevel[]; asks: PriceLevel[] }> = fc
  .record({
    mid: fc.bigInt({ min: 10n ** 4n, max: 10n ** 10n }),
    bidSteps: stepsArbitrary,
    askSteps: stepsArbitrary,
    bidSizes: fc.array(sizeArbitrary, { minLength: 5, maxLength: 5 }),
    askSizes: fc.array(sizeArbitrary, { minLength: 5, maxLength: 5 }),
  })
  .map(({ mid, bidSteps, askSteps, bidSizes, askSizes }) => {
    let bid = mid
    let ask = mid
    return {
      bids: bidSteps.map((step, index) => {
        bid -= step
        return [decimalText(bid, priceScale), bidSizes[index] ?? '1'] as const
      }),
      asks: askSteps.map((step, index) => {
        ask += step
        return [decimalText(ask, priceScale), askSizes[index] ?? '1'] as const
      }),
    }
  })

const decimalsArbitrary = fc.record({ baseDecimals: fc.integer({ min: 0, max: 18 }), quoteDecimals: fc.integer({ min: 0, max: 18 }) })
/** A share of a side's depth, as numerator over 2^32. */
const shareArbitrary = fc.bigInt({ min: 1n, max: 1n << 32n })

type Decimals = { baseDecimals: number; quoteDecimals: number }

function fill(grid: PriceGrid, request: Omit<GridFillRequest, 'baseDecimals' | 'quoteDecimals'>, decimals: Decimals): bigint | undefined {
  const result = fillFromGrid(grid, { ...request, ...decimals })
  return result.ok ? result.amount : undefined
}

/** The side's depth in the unit of the amount (fillFromGrid reports it when the amount is beyond it). */
function depthOf(grid: PriceGrid, request: Omit<GridFillRequest, 'baseDecimals' | 'quoteDecimals' | 'amount'>, decimals: Decimals): bigint {
  const result = fillFromGrid(grid, { ...request, amount: 1n << 255n, ...decimals })
  if (result.ok) throw new Error('a side cannot be 2^255 deep')
  return result.depth
}

/** An amount within (0, depth], or undefined when the side holds nothing at these decimals. */
function within(depth: bigint, share: bigint): bigint | undefined {
  if (depth === 0n) return undefined
  const amount = (depth * share) >> 32n
  return amount === 0n ? 1n : amount
}

/** The exact other side as a fraction, walking the levels independently of fillFromGrid's accumulation. */
function exactOther(grid: PriceGrid, { src, side, amount, baseDecimals, quoteDecimals }: GridFillRequest): { n: bigint; d: bigint } {
  const amountIsBase = side === 'SELL' ? src === 'base' : src === 'quote'
  const levels = (src === 'base' ? grid.bids : grid.asks) ?? []
  const baseUnit = 10n ** BigInt(baseDecimals)
  const quoteUnit = 10n ** BigInt(quoteDecimals)
  // Sum over a common denominator: the product of every level's denominators.
  let n = 0n
  let d = 1n
  let remaining = amount
  for (const [priceText, sizeText] of levels) {
    const price = parseDecimal(priceText)
    const size = parseDecimal(sizeText)
    const capacity = amountIsBase ? (size.n * baseUnit) / size.d : (price.n * size.n * quoteUnit) / (price.d * size.d)
    const taken = remaining < capacity ? remaining : capacity
    remaining -= taken
    const partN = amountIsBase ? taken * price.n * quoteUnit : taken * price.d * baseUnit
    const partD = amountIsBase ? price.d * baseUnit : price.n * quoteUnit
    n = n * partD + partN * d
    d *= partD
  }
  return { n, d }
}

/**
 * The other side in the exact book the document describes (no rounding anywhere: a level holds exactly `amount`
 * base, or `price × amount` quote when inverted), with the worst conversion rate met, rounded up to a raw unit.
 */
function exactBook(grid: PriceGrid, { src, side, amount, baseDecimals, quoteDecimals }: GridFillRequest) {
  const amountIsBase = side === 'SELL' ? src === 'base' : src === 'quote'
  const levels = (src === 'base' ? grid.bids : grid.asks) ?? []
  const baseUnit = 10n ** BigInt(baseDecimals)
  const quoteUnit = 10n ** BigInt(quoteDecimals)
  let total = { n: 0n, d: 1n }
  let remaining = { n: amount, d: 1n }
  let maxRateCeil = 0n
  for (const [priceText, sizeText] of levels) {
    if (remaining.n === 0n) break
    const price = parseDecimal(priceText)
    const size = parseDecimal(sizeText)
    const capacity = amountIsBase ? { n: size.n * baseUnit, d: size.d } : { n: price.n * size.n * quoteUnit, d: price.d * size.d }
    const taken = remaining.n * capacity.d <= capacity.n * remaining.d ? remaining : capacity
    remaining = { n: remaining.n * taken.d - taken.n * remaining.d, d: remaining.d * taken.d }
    const rate = amountIsBase ? { n: price.n * quoteUnit, d: price.d * baseUnit } : { n: price.d * baseUnit, d: price.n * quoteUnit }
    const rateCeil = (rate.n + rate.d - 1n) / rate.d
    if (rateCeil > maxRateCeil) maxRateCeil = rateCeil
    total = { n: total.n * taken.d * rate.d + taken.n * rate.n * total.d, d: total.d * taken.d * rate.d }
  }
  return { ...total, maxRateCeil }
}

describe('fillFromGrid', () => {
  it('never gives a user back more base than sold when selling base then buying base with the proceeds', () => {
    fc.assert(
      fc.property(gridArbitrary, decimalsArbitrary, shareArbitrary, (grid, decimals, share) => {
        const sold = within(depthOf(grid, { src: 'base', side: 'SELL' }, decimals), share)
        if (sold === undefined) return
        const proceeds = fill(grid, { src: 'base', side: 'SELL', amount: sold }, decimals)
        if (proceeds === undefined || proceeds === 0n) return
        const boughtBack = fill(grid, { src: 'quote', side: 'SELL', amount: proceeds }, decimals)
        if (boughtBack === undefined) return
        expect(boughtBack).toBeLessThanOrEqual(sold)
      }),
    )
  })

  it('charges at least as much quote to buy an amount of base as selling that amount pays', () => {
    fc.assert(
      fc.property(gridArbitrary, decimalsArbitrary, shareArbitrary, (grid, decimals, share) => {
        const base = within(depthOf(grid, { src: 'base', side: 'SELL' }, decimals), share)
        if (base === undefined) return
        const proceeds = fill(grid, { src: 'base', side: 'SELL', amount: base }, decimals)
        const cost = fill(grid, { src: 'quote', side: 'BUY', amount: base }, decimals)
        if (proceeds === undefined || cost === undefined) return
        expect(cost).toBeGreaterThanOrEqual(proceeds)
      }),
    )
  })

  it('stays within the level roundings of the exact book, never in favour of the user, inverted or not', () => {
    fc.assert(
      fc.property(
        gridArbitrary,
        decimalsArbitrary,
        shareArbitrary,
        fc.constantFrom('base', 'quote'),
        fc.constantFrom('SELL', 'BUY'),
        (grid, decimals, share, src, side) => {
          const amount = within(depthOf(grid, { src, side }, decimals), share)
          if (amount === undefined) return
          const result = fillFromGrid(grid, { src, side, amount, ...decimals })
          if (!result.ok) throw new Error('an amount within the depth must fill')
          const exact = exactBook(grid, { src, side, amount, ...decimals })
          // Each level's capacity is floored to a raw unit of the amount: at most one unit per level moves to the
          // next (worse) level, worth at most `maxRate` of the other token; plus the final rounding.
          const slack = (1n + BigInt(result.levelsUsed) * exact.maxRateCeil) * exact.d
          if (side === 'SELL') {
            expect(result.amount * exact.d <= exact.n).toBe(true)
            expect(exact.n - result.amount * exact.d < slack).toBe(true)
          } else {
            expect(result.amount * exact.d >= exact.n).toBe(true)
            expect(result.amount * exact.d - exact.n < slack).toBe(true)
          }
        },
      ),
    )
  })

  it('fills exactly the depth and refuses one unit more, reporting the depth', () => {
    fc.assert(
      fc.property(
        gridArbitrary,
        decimalsArbitrary,
        fc.constantFrom('base', 'quote'),
        fc.constantFrom('SELL', 'BUY'),
        (grid, decimals, src, side) => {
          const depth = depthOf(grid, { src, side }, decimals)
          if (depth === 0n) return
          expect(fillFromGrid(grid, { src, side, amount: depth, ...decimals }).ok).toBe(true)
          expect(fillFromGrid(grid, { src, side, amount: depth + 1n, ...decimals })).toEqual({
            ok: false,
            reason: 'insufficient-depth',
            depth,
          })
        },
      ),
    )
  })

  it('rounds an output down and an input up, by less than one unit', () => {
    fc.assert(
      fc.property(
        gridArbitrary,
        decimalsArbitrary,
        shareArbitrary,
        fc.constantFrom('base', 'quote'),
        fc.constantFrom('SELL', 'BUY'),
        (grid, decimals, share, src, side) => {
          const amount = within(depthOf(grid, { src, side }, decimals), share)
          if (amount === undefined) return
          const result = fill(grid, { src, side, amount }, decimals)
          if (result === undefined) throw new Error('an amount within the depth must fill')
          const exact = exactOther(grid, { src, side, amount, ...decimals })
          if (side === 'SELL') {
            expect(result * exact.d <= exact.n).toBe(true)
            expect((result + 1n) * exact.d > exact.n).toBe(true)
          } else {
            expect(result * exact.d >= exact.n).toBe(true)
            expect((result - 1n) * exact.d < exact.n).toBe(true)
          }
        },
      ),
    )
  })

  it('inverts a single ask level exactly: quote in, base out at 1/price', () => {
    // 1,000 USDC at 2,000.5 USDC per WETH: 0.499875031242189452… WETH, rounded down.
    const grid = { asks: [['2000.5', '10']] } as const
    const result = fillFromGrid(grid, { src: 'quote', side: 'SELL', amount: 1_000_000_000n, baseDecimals: 18, quoteDecimals: 6 })
    expect(result).toEqual({ ok: true, amount: 499_875_031_242_189_452n, levelsUsed: 1 })
  })

  it('reports a missing side as no-side', () => {
    expect(fillFromGrid({ bids: [['1', '1']] }, { src: 'quote', side: 'SELL', amount: 1n, baseDecimals: 0, quoteDecimals: 0 })).toEqual({
      ok: false,
      reason: 'no-side',
      depth: 0n,
    })
  })
})

describe('isGridCrossed', () => {
  it('compares prices as numbers, not strings', () => {
    expect(isGridCrossed({ bids: [['10', '1']], asks: [['9.5', '1']] })).toBe(true)
    expect(isGridCrossed({ bids: [['9.5', '1']], asks: [['10', '1']] })).toBe(false)
    expect(isGridCrossed({ bids: [['10.0', '1']], asks: [['10', '1']] })).toBe(true)
  })

  it('is false when a side is missing', () => {
    expect(isGridCrossed({ bids: [['10', '1']] })).toBe(false)
    expect(isGridCrossed({})).toBe(false)
  })

  it('is true exactly when some bid is at or above some ask', () => {
    const pricesArbitrary = fc.array(fc.tuple(fc.bigInt({ min: 1n, max: 10n ** 8n }), fc.integer({ min: 0, max: 6 })), {
      minLength: 1,
      maxLength: 4,
    })
    fc.assert(
      fc.property(pricesArbitrary, pricesArbitrary, (bids, asks) => {
        // Compare on a common scale of 10^6 to decide independently.
        const scaled = ([units, scale]: [bigint, number]) => units * 10n ** BigInt(6 - scale)
        const ascending = (values: bigint[]) => values.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
        const highestBid = ascending(bids.map(scaled)).at(-1) ?? 0n
        const lowestAsk = ascending(asks.map(scaled))[0] ?? 0n
        const grid = {
          bids: bids.map(([units, scale]) => [decimalText(units, scale), '1'] as const),
          asks: asks.map(([units, scale]) => [decimalText(units, scale), '1'] as const),
        }
        expect(isGridCrossed(grid)).toBe(highestBid >= lowestAsk)
      }),
    )
  })

  it('never holds for the generated uncrossed grids', () => {
    fc.assert(
      fc.property(gridArbitrary, (grid) => {
        expect(isGridCrossed(grid)).toBe(false)
      }),
    )
  })
})
