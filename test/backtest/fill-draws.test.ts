import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { auctionSeedOf, createNormalRandom, shiftByBps, sizeImpactBps } from '../../src/backtest/fill-draws.js'
import { createRandom } from '../../src/domain/seeded-random.js'

describe('auctionSeedOf', () => {
  it('gives every run seed its own auction seed, none equal to a run seed of the same stream', () => {
    const seeds = Array.from({ length: 1_000 }, (_, seed) => seed)
    const derived = new Set(seeds.map(auctionSeedOf))
    expect(derived.size).toBe(seeds.length)
    for (const seed of seeds) expect(auctionSeedOf(seed)).not.toBe(seed)
  })

  it('starts a stream that differs from the bridge stream of the same seed', () => {
    const bridges = createRandom(7)
    const auctions = createRandom(auctionSeedOf(7))
    const a = Array.from({ length: 8 }, bridges)
    const b = Array.from({ length: 8 }, auctions)
    expect(a.filter((value, index) => value === b[index])).toEqual([])
  })
})

describe('createNormalRandom', () => {
  it('draws a standard normal: mean 0, deviation 1, 95 % within ±1.96, bounded', () => {
    const normal = createNormalRandom(createRandom(42))
    const draws = Array.from({ length: 40_000 }, normal)
    const mean = draws.reduce((sum, value) => sum + value, 0) / draws.length
    const deviation = Math.sqrt(draws.reduce((sum, value) => sum + (value - mean) ** 2, 0) / draws.length)
    expect(Math.abs(mean)).toBeLessThan(0.02)
    expect(Math.abs(deviation - 1)).toBeLessThan(0.02)
    const inside = draws.filter((value) => Math.abs(value) <= 1.96).length / draws.length
    expect(Math.abs(inside - 0.95)).toBeLessThan(0.005)
    expect(draws.filter((value) => value > 0).length / draws.length).toBeCloseTo(0.5, 1)
    expect(draws.reduce((largest, value) => Math.max(largest, Math.abs(value)), 0)).toBeLessThan(6.7)
  })

  it('repeats its draws for the same uniform stream', () => {
    const a = createNormalRandom(createRandom(3))
    const b = createNormalRandom(createRandom(3))
    const c = createNormalRandom(createRandom(4))
    const first = Array.from({ length: 5 }, a)
    expect(Array.from({ length: 5 }, b)).toEqual(first)
    expect(Array.from({ length: 5 }, c)).not.toEqual(first)
  })

  it('stays finite when the uniform gives its extremes', () => {
    const extremes = [0, 0.999_999_999, 0, 0]
    let index = 0
    const normal = createNormalRandom(() => extremes[index++ % extremes.length] as number)
    for (let draw = 0; draw < 4; draw++) expect(Number.isFinite(normal())).toBe(true)
  })
})

describe('shiftByBps', () => {
  it('moves an amount by hundredths of a bps', () => {
    expect(shiftByBps(1_000_000n, 5, 'down')).toBe(1_000_500n)
    expect(shiftByBps(1_000_000n, -3, 'down')).toBe(999_700n)
    expect(shiftByBps(1_000_000n, 0.01, 'down')).toBe(1_000_001n)
    expect(shiftByBps(123n, 0, 'up')).toBe(123n)
    expect(shiftByBps(10n ** 18n, -20_000, 'down')).toBe(0n)
  })

  it('rounds a received amount down and a paid amount up, within one unit of the exact figure', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 30n }), fc.double({ min: -500, max: 500, noNaN: true }), (amount, bps) => {
        const down = shiftByBps(amount, bps, 'down')
        const up = shiftByBps(amount, bps, 'up')
        const factor = 1_000_000n + BigInt(Math.round(bps * 100))
        expect(down * 1_000_000n).toBeLessThanOrEqual(amount * factor)
        expect(up * 1_000_000n).toBeGreaterThanOrEqual(amount * factor)
        expect(up - down).toBeLessThanOrEqual(1n)
      }),
    )
  })

  it('never moves against the sign: more bps never gives less', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 1n, max: 10n ** 24n }),
        fc.double({ min: -100, max: 100, noNaN: true }),
        fc.double({ min: 0, max: 100, noNaN: true }),
        (amount, bps, more) => {
          expect(shiftByBps(amount, bps + more, 'down')).toBeGreaterThanOrEqual(shiftByBps(amount, bps, 'down'))
        },
      ),
    )
  })
})

describe('sizeImpactBps', () => {
  const usdc = 10n ** 6n
  const weth = 10n ** 18n
  // 10 USDC for 0.005 WETH: 2,000 USDC per WETH.
  const smallSell = { srcAmount: 10n * usdc, destAmount: 5n * 10n ** 15n }

  it('is how much less a SELL receives per unit than the smallest size', () => {
    // 10,000 USDC for 4.99 WETH instead of 5: 20 bps worse.
    expect(sizeImpactBps('SELL', smallSell, { srcAmount: 10_000n * usdc, destAmount: 499n * 10n ** 16n })).toBeCloseTo(20, 6)
  })

  it('is how much more a BUY pays per unit than the smallest size', () => {
    const smallBuy = { srcAmount: 2_000n * usdc, destAmount: weth }
    expect(sizeImpactBps('BUY', smallBuy, { srcAmount: 20_010n * usdc, destAmount: 10n * weth })).toBeCloseTo(5, 6)
  })

  it('is 0 at the same price, at a better price, and for empty amounts', () => {
    expect(sizeImpactBps('SELL', smallSell, { srcAmount: 20n * usdc, destAmount: 10n ** 16n })).toBe(0)
    expect(sizeImpactBps('SELL', smallSell, { srcAmount: 10n * usdc, destAmount: 6n * 10n ** 15n })).toBe(0)
    expect(sizeImpactBps('SELL', { srcAmount: 0n, destAmount: 0n }, smallSell)).toBe(0)
    expect(sizeImpactBps('BUY', smallSell, { srcAmount: 0n, destAmount: 1n })).toBe(0)
  })

  it('depends on prices only: scaling a trade does not change it', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 10n ** 6n, max: 10n ** 12n }),
        fc.integer({ min: 0, max: 9_000 }),
        fc.bigInt({ min: 1n, max: 1_000n }),
        (src, worseBps, scale) => {
          const reference = { srcAmount: src, destAmount: src * 3n }
          const trade = { srcAmount: src, destAmount: (src * 3n * BigInt(10_000 - worseBps)) / 10_000n }
          const scaled = { srcAmount: trade.srcAmount * scale, destAmount: trade.destAmount * scale }
          expect(sizeImpactBps('SELL', reference, scaled)).toBeCloseTo(sizeImpactBps('SELL', reference, trade), 6)
          expect(sizeImpactBps('SELL', reference, trade)).toBeGreaterThanOrEqual(worseBps - 0.01)
        },
      ),
    )
  })
})
