import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { getAmountOut } from '../../src/sandbox/market/amm-math.js'
import { planArbitrageTrade } from '../../src/sandbox/market/arbitrage.js'
import type { PoolState } from '../../src/sandbox/market/route-finder.js'
import { loadDefaultPricePaths, type PricePath, pathPriceAt } from '../../src/sandbox/venue/price-path.js'

const pool = (reserve0: bigint, reserve1: bigint, feeBps = 30n): PoolState => ({
  address: '0x0000000000000000000000000000000000000001',
  token0: '0x0000000000000000000000000000000000000002',
  token1: '0x0000000000000000000000000000000000000003',
  reserve0,
  reserve1,
  feeBps,
  name: 'A/B',
})

describe('planArbitrageTrade', () => {
  it('brings the pool price to the target, within 0.1 %, from either side', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 10n ** 18n, max: 10n ** 27n }),
        fc.double({ min: 0.01, max: 100_000, noNaN: true }),
        fc.double({ min: 0.5, max: 2, noNaN: true }),
        (reserve0, price, move) => {
          const reserve1 = BigInt(Math.floor(Number(reserve0) * price))
          const state = pool(reserve0, reserve1)
          const target = price * move
          const trade = planArbitrageTrade(state, target)
          if (Math.abs(move - 1) <= 0.0035) return
          expect(trade).toBeDefined()
          if (!trade) return
          const buysToken0 = trade.tokenIn === state.token1
          const out = buysToken0
            ? getAmountOut(trade.amountIn, state.reserve1, state.reserve0, state.feeBps)
            : getAmountOut(trade.amountIn, state.reserve0, state.reserve1, state.feeBps)
          const after0 = buysToken0 ? state.reserve0 - out : state.reserve0 + trade.amountIn
          const after1 = buysToken0 ? state.reserve1 + trade.amountIn : state.reserve1 - out
          expect(Math.abs(Number(after1) / Number(after0) / target - 1)).toBeLessThan(0.001)
        },
      ),
    )
  })

  it('leaves a pool inside its fee band alone', () => {
    expect(planArbitrageTrade(pool(10n ** 24n, 2_000n * 10n ** 24n), 2_004)).toBeUndefined()
    expect(planArbitrageTrade(pool(10n ** 24n, 2_000n * 10n ** 24n), 2_020)).toBeDefined()
  })
})

describe('pathPriceAt', () => {
  const path: PricePath = { symbols: ['X'], times: [0, 1_000, 3_000], prices: [10, 20, 0.5] }

  it('interpolates between closes and repeats the path when it runs out', () => {
    expect(pathPriceAt(path, 0)).toBe(10)
    expect(pathPriceAt(path, 500)).toBe(15)
    expect(pathPriceAt(path, 2_000)).toBeCloseTo(10.25)
    expect(pathPriceAt(path, 3_500)).toBe(15)
  })

  it('loads the bundled real candle paths, starting at their first closes', () => {
    const [eth, btc] = loadDefaultPricePaths()
    expect(eth?.symbols).toEqual(['WETH'])
    expect(eth && pathPriceAt(eth, 0)).toBe(1958.54)
    expect(btc && pathPriceAt(btc, 0)).toBe(23142.31)
    expect(btc?.times.length).toBe(30_240)
  })
})
