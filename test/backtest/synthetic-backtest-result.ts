import type { BacktestFill, BacktestResult, SeriesPoint } from '../../src/backtest/backtest-result.js'

export type SyntheticResultOptions = {
  /** Points per series. */
  points?: number
  fills?: number
  strategyName?: string
  seed?: number
  warnings?: string[]
}

/** Deterministic pseudo-random numbers in [0, 1) (mulberry32). */
function random(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/**
 * A plausible result of 30 days of ETH/USDC: a random-walk price, a strategy that trades around it, holding 1 ETH and
 * 3,000 USDC as the benchmark. Not the output of the engine: figures are made consistent enough to draw.
 */
export function syntheticBacktestResult(options: SyntheticResultOptions = {}): BacktestResult {
  const points = options.points ?? 2000
  const fillCount = options.fills ?? 40
  const next = random(options.seed ?? 7)
  const from = Date.UTC(2024, 2, 1)
  const to = from + 30 * 86_400_000
  const step = (to - from) / Math.max(1, points - 1)
  const price: SeriesPoint[] = []
  const equity: SeriesPoint[] = []
  const hold: SeriesPoint[] = []
  let p = 3000
  let drift = 0
  for (let index = 0; index < points; index++) {
    const t = Math.round(from + index * step)
    p *= 1 + (next() - 0.5) * 0.004
    drift += (next() - 0.48) * 2
    price.push([t, p])
    hold.push([t, p + 3000])
    equity.push([t, p + 3000 + drift])
  }
  const name = options.strategyName ?? 'grid-eth'
  const fills: BacktestFill[] = []
  for (let index = 0; index < fillCount; index++) {
    const at = Math.floor(((index + 0.5) / fillCount) * points)
    const [t, marketPrice] = price[Math.min(points - 1, at)] as SeriesPoint
    const side = index % 3 === 0 ? 'SELL' : 'BUY'
    const slippageBps = (next() - 0.3) * 20
    const fillPrice = marketPrice * (1 + ((side === 'BUY' ? 1 : -1) * slippageBps) / 10_000)
    const baseAmount = 0.05 + next() * 0.2
    fills.push({
      t,
      strategy: name,
      orderId: `0x${(index + 1).toString(16).padStart(8, '0')}`,
      side,
      price: fillPrice,
      baseAmount,
      quoteAmount: baseAmount * fillPrice,
      slippageBps,
      mode: index % 2 === 0 ? 'delta' : 'market',
      fee: 0.3,
      gas: index % 2 === 0 ? 0 : 0.25,
    })
  }
  const last = equity[equity.length - 1]?.[1] ?? 6000
  const holdLast = hold[hold.length - 1]?.[1] ?? 6000
  const start = equity[0]?.[1] ?? 6000
  const slippages = fills.map((fill) => fill.slippageBps).sort((a, b) => a - b)
  return {
    version: 1,
    config: 'config/grid.yaml',
    quotes: 'data/eth-usdc-2024-03.jsonl.gz',
    seed: 42,
    from,
    to,
    pair: { base: 'ETH', quote: 'USDC' },
    tradesHash: 'a3f1c2d4e5b60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90',
    summary: {
      startValue: start,
      endValue: last,
      holdEndValue: holdLast,
      pnl: last - start,
      pnlVsHold: last - holdLast,
      executionPrice: fills.length > 0 ? 3001.5 : null,
      averagePrice: 3000.25,
      slippageBps:
        slippages.length > 0
          ? {
              mean: slippages.reduce((sum, value) => sum + value, 0) / slippages.length,
              p50: slippages[Math.floor(slippages.length * 0.5)] as number,
              p95: slippages[Math.min(slippages.length - 1, Math.floor(slippages.length * 0.95))] as number,
            }
          : null,
      fees: fills.length * 0.3,
      gas: Math.floor(fills.length / 2) * 0.25,
      fillRate: 0.8,
      ordersByStatus: { COMPLETED: fillCount, EXPIRED: Math.ceil(fillCount / 4) },
      maxDrawdown: 0.034,
      maxDrawdownWindow: { from: from + 5 * 86_400_000, to: from + 9 * 86_400_000 },
      trades: fills.length,
      startHoldings: { base: 1, quote: 3000 },
      endHoldings: { base: 1.2, quote: 2400 },
      strategyErrors: 0,
    },
    series: { equity, hold, price },
    fills,
    strategies: [
      {
        name,
        orders: { COMPLETED: fillCount, EXPIRED: Math.ceil(fillCount / 4) },
        fills: fills.length,
        bought: fills.filter((fill) => fill.side === 'BUY').reduce((sum, fill) => sum + fill.baseAmount, 0),
        sold: fills.filter((fill) => fill.side === 'SELL').reduce((sum, fill) => sum + fill.baseAmount, 0),
        fees: fills.length * 0.3,
        gas: Math.floor(fills.length / 2) * 0.25,
        pnl: last - start,
        errors: 0,
      },
    ],
    warnings: options.warnings ?? [],
  }
}
