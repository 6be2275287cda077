import { readFileSync } from 'node:fs'
import { z } from 'zod'

export type PricePath = {
  /** Token symbols this path prices in USD. */
  symbols: readonly string[]
  /** Candle open times (ms) and closes, ascending. */
  times: readonly number[]
  prices: readonly number[]
}

const rowSchema = z.tuple([z.coerce.number().int().positive(), z.coerce.number().positive()])

/** Reads a `time_ms,close` file (src/sandbox/market-data); rejects a malformed row naming its line. */
export function loadPricePath(file: URL, symbols: readonly string[]): PricePath {
  const lines = readFileSync(file, 'utf8').trim().split('\n')
  const times: number[] = []
  const prices: number[] = []
  for (const [index, line] of lines.slice(1).entries()) {
    const parsed = rowSchema.safeParse(line.split(','))
    if (!parsed.success) throw new Error(`${file.pathname}:${index + 2}: expected "time_ms,close", received "${line}"`)
    const [time, price] = parsed.data
    if (times.length > 0 && time <= (times.at(-1) ?? 0)) throw new Error(`${file.pathname}:${index + 2}: times must increase`)
    times.push(time)
    prices.push(price)
  }
  if (times.length < 2) throw new Error(`${file.pathname}: a price path needs at least two rows`)
  return { symbols, times, prices }
}

/**
 * The path's price `elapsedMs` after its start, interpolated linearly between closes; the path repeats from its
 * start when it runs out (with a jump back to the first close).
 */
export function pathPriceAt(path: PricePath, elapsedMs: number): number {
  const start = path.times[0] as number
  const duration = (path.times.at(-1) as number) - start
  const t = start + (((elapsedMs % duration) + duration) % duration)
  let low = 0
  let high = path.times.length - 1
  while (high - low > 1) {
    const middle = (low + high) >> 1
    if ((path.times[middle] as number) <= t) low = middle
    else high = middle
  }
  const t0 = path.times[low] as number
  const t1 = path.times[high] as number
  const p0 = path.prices[low] as number
  const p1 = path.prices[high] as number
  return t1 === t0 ? p0 : p0 + ((p1 - p0) * (t - t0)) / (t1 - t0)
}

/** The real candle sets the sandbox replays: ETH from ETH/USDT 5 m, BTC from BTC/USDT 1 m. */
export function loadDefaultPricePaths(): PricePath[] {
  return [
    loadPricePath(new URL('../market-data/ethusdt-5m-close.csv', import.meta.url), ['WETH']),
    loadPricePath(new URL('../market-data/btcusdt-1m-close.csv', import.meta.url), ['WBTC']),
  ]
}
