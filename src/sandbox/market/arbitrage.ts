import type { Address } from 'viem'
import type { PoolState } from './route-finder.js'

export type ArbitrageTrade = { pool: PoolState; tokenIn: Address; amountIn: bigint }

/**
 * The trade that brings a constant-product pool to `targetPrice` (raw token1 units per raw token0 unit), or
 * undefined while the pool is within its fee plus `thresholdBps` of it — the band a real arbitrageur leaves alone.
 */
export function planArbitrageTrade(pool: PoolState, targetPrice: number, thresholdBps = 5): ArbitrageTrade | undefined {
  const reserve0 = Number(pool.reserve0)
  const reserve1 = Number(pool.reserve1)
  if (!(reserve0 > 0 && reserve1 > 0 && targetPrice > 0)) return undefined
  const fee = Number(pool.feeBps) / 10_000
  const deviation = Math.abs(reserve1 / reserve0 / targetPrice - 1)
  if (deviation <= fee + thresholdBps / 10_000) return undefined
  const product = reserve0 * reserve1
  const targetReserve0 = Math.sqrt(product / targetPrice)
  if (targetReserve0 < reserve0) {
    // token0 is too cheap in the pool: buy it with token1.
    const amountIn = BigInt(Math.floor((product / targetReserve0 - reserve1) / (1 - fee)))
    return amountIn > 0n ? { pool, tokenIn: pool.token1, amountIn } : undefined
  }
  const amountIn = BigInt(Math.floor((targetReserve0 - reserve0) / (1 - fee)))
  return amountIn > 0n ? { pool, tokenIn: pool.token0, amountIn } : undefined
}
