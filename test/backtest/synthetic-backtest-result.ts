import type {
  BacktestDay,
  BacktestFill,
  BacktestMetrics,
  BacktestResult,
  RoundTrips,
  SeriesPoint,
} from '../../src/backtest/backtest-result.js'
import { minimumAnnualisedMs } from '../../src/backtest/metrics.js'

export type SyntheticResultOptions = {
  /** Points per series. */
  points?: number
  fills?: number
  strategyName?: string
  seed?: number
  warnings?: string[]
  /** Length of the run in days (30 by default). */
  days?: number
  fillModel?: 'ideal' | 'realistic'
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

const dayMs = 86_400_000

function mean(values: readonly number[]): number {
  return values.reduce((sum, value) => sum + value, 0) / values.length
}

/** Equity's fall from its running peak, and the largest fall's peak, trough and recovery. */
function drawdownOf(equity: readonly SeriesPoint[]) {
  const drawdown: SeriesPoint[] = []
  let peak = Number.NEGATIVE_INFINITY
  let peakAt = 0
  let max = 0
  let window: { from: number; to: number; recoveredAt: number | null } | null = null
  let belowSince: number | null = null
  let longest = 0
  for (const [t, value] of equity) {
    if (value >= peak) {
      if (belowSince !== null) longest = Math.max(longest, t - belowSince)
      belowSince = null
      if (window && window.recoveredAt === null && window.from === peakAt) window.recoveredAt = t
      peak = value
      peakAt = t
    } else if (belowSince === null) belowSince = peakAt
    const fall = peak > 0 ? (peak - value) / peak : 0
    drawdown.push([t, fall])
    if (fall > max) {
      max = fall
      window = { from: peakAt, to: t, recoveredAt: null }
    }
  }
  const last = equity[equity.length - 1]
  if (belowSince !== null && last) longest = Math.max(longest, last[0] - belowSince)
  return { drawdown, max, window: max > 0 ? window : null, longest }
}

/** Sells matched first-in first-out against earlier buys; profit net of the fills' fees and gas. */
function roundTripsOf(fills: readonly BacktestFill[]): RoundTrips | null {
  const lots: { amount: number; price: number; costPerBase: number }[] = []
  const profits: number[] = []
  for (const fill of fills) {
    const costPerBase = (fill.fee + fill.gas) / fill.baseAmount
    if (fill.side === 'BUY') {
      lots.push({ amount: fill.baseAmount, price: fill.price, costPerBase })
      continue
    }
    let remaining = fill.baseAmount
    while (remaining > 1e-12 && lots.length > 0) {
      const lot = lots[0] as (typeof lots)[number]
      const taken = Math.min(lot.amount, remaining)
      profits.push(taken * (fill.price - lot.price) - taken * (costPerBase + lot.costPerBase))
      lot.amount -= taken
      remaining -= taken
      if (lot.amount <= 1e-12) lots.shift()
    }
  }
  if (profits.length === 0) return null
  const wins = profits.filter((profit) => profit > 0)
  const losses = profits.filter((profit) => profit <= 0).map((profit) => -profit)
  const winRate = wins.length / profits.length
  const averageWin = wins.length > 0 ? mean(wins) : 0
  const averageLoss = losses.length > 0 ? mean(losses) : 0
  const grossLoss = losses.reduce((sum, loss) => sum + loss, 0)
  return {
    trades: profits.length,
    wins: wins.length,
    losses: losses.length,
    winRate,
    averageWin,
    averageLoss,
    profitFactor: grossLoss > 0 ? wins.reduce((sum, win) => sum + win, 0) / grossLoss : null,
    expectancy: winRate * averageWin - (1 - winRate) * averageLoss,
  }
}

/** One row per UTC day that has points: its first and last equity, and the fills that fell in it. */
function dailyOf(equity: readonly SeriesPoint[], fills: readonly BacktestFill[]): BacktestDay[] {
  const days: BacktestDay[] = []
  for (const [t, value] of equity) {
    const day = new Date(t).toISOString().slice(0, 10)
    const current = days[days.length - 1]
    if (current?.day === day) current.endValue = value
    else days.push({ day, startValue: current?.endValue ?? value, endValue: value, return: 0, trades: 0, fees: 0, gas: 0 })
  }
  for (const fill of fills) {
    const row = days.find((day) => day.day === new Date(fill.t).toISOString().slice(0, 10))
    if (!row) continue
    row.trades++
    row.fees += fill.fee
    row.gas += fill.gas
  }
  for (const row of days) row.return = row.startValue > 0 ? row.endValue / row.startValue - 1 : 0
  return days
}

function metricsOf(
  equity: readonly SeriesPoint[],
  price: readonly SeriesPoint[],
  daily: readonly BacktestDay[],
  fills: readonly BacktestFill[],
  span: number,
): BacktestMetrics {
  const start = equity[0]?.[1] ?? 0
  const end = equity[equity.length - 1]?.[1] ?? 0
  const returns = daily.map((day) => day.return)
  const average = returns.length > 0 ? mean(returns) : 0
  const deviation = returns.length >= 2 ? Math.sqrt(returns.reduce((sum, r) => sum + (r - average) ** 2, 0) / (returns.length - 1)) : 0
  const downside = returns.length >= 2 ? Math.sqrt(returns.reduce((sum, r) => sum + Math.min(0, r) ** 2, 0) / returns.length) : 0
  const { max, window, longest } = drawdownOf(equity)
  const cagr = span >= minimumAnnualisedMs && start > 0 && end > 0 ? (end / start) ** ((365 * dayMs) / span) - 1 : null
  const volume = fills.reduce((sum, fill) => sum + fill.quoteAmount, 0)
  const firstPrice = price[0]?.[1]
  const lastPrice = price[price.length - 1]?.[1]
  return {
    totalReturn: start > 0 ? end / start - 1 : 0,
    cagr,
    marketChange: firstPrice !== undefined && lastPrice !== undefined ? lastPrice / firstPrice - 1 : null,
    volatility: deviation > 0 ? deviation * Math.sqrt(365) : null,
    sharpe: deviation > 0 ? (average / deviation) * Math.sqrt(365) : null,
    sortino: downside > 0 ? (average / downside) * Math.sqrt(365) : null,
    calmar: cagr !== null && max > 0 ? cagr / max : null,
    maxDrawdown: max,
    maxDrawdownWindow: window,
    maxDrawdownDurationMs: Math.round(longest),
    exposure: equity.length > 0 ? 1 : 0,
    feesShareOfVolume: volume > 0 ? fills.reduce((sum, fill) => sum + fill.fee, 0) / volume : null,
    gasShareOfVolume: volume > 0 ? fills.reduce((sum, fill) => sum + fill.gas, 0) / volume : null,
    returns: { period: 'day', periodMs: dayMs, periodsPerYear: 365, riskFreeRate: 0, count: returns.length },
    roundTrips: roundTripsOf(fills),
  }
}

/**
 * A plausible result of 30 days of ETH/USDC: a random-walk price, a strategy that trades around it, starting with
 * 1 ETH and 3,000 USDC. The benchmarks, drawdown, daily rows and metrics are computed from the made-up series, so
 * they agree with each other (not the output of the engine, which has its own tests).
 */
export function syntheticBacktestResult(options: SyntheticResultOptions = {}): BacktestResult {
  const points = options.points ?? 2000
  const fillCount = options.fills ?? 40
  const next = random(options.seed ?? 7)
  const from = Date.UTC(2024, 2, 1)
  const to = from + (options.days ?? 30) * dayMs
  const step = (to - from) / Math.max(1, points - 1)
  const price: SeriesPoint[] = []
  const equity: SeriesPoint[] = []
  const holdStart: SeriesPoint[] = []
  let p = 3000
  let drift = 0
  for (let index = 0; index < points; index++) {
    const t = Math.round(from + index * step)
    p *= 1 + (next() - 0.5) * 0.004
    drift += (next() - 0.48) * 2
    price.push([t, p])
    holdStart.push([t, p + 3000])
    equity.push([t, p + 3000 + drift])
  }
  const startValue = equity[0]?.[1] ?? 6000
  const firstPrice = price[0]?.[1] ?? 3000
  const buyAndHold = price.map(([t, value]): SeriesPoint => [t, (startValue / firstPrice) * value])
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
      plannedPrice: marketPrice,
      baseAmount,
      quoteAmount: baseAmount * fillPrice,
      slippageBps,
      mode: index % 2 === 0 ? 'delta' : 'market',
      fee: 0.3,
      gas: index % 2 === 0 ? 0 : 0.25,
    })
  }
  const endValue = equity[equity.length - 1]?.[1] ?? 6000
  const endPrice = price[price.length - 1]?.[1] ?? 3000
  const buyAndHoldEnd = buyAndHold[buyAndHold.length - 1]?.[1] ?? startValue
  const holdStartEnd = holdStart[holdStart.length - 1]?.[1] ?? startValue
  const slippages = fills.map((fill) => fill.slippageBps).sort((a, b) => a - b)
  const daily = dailyOf(equity, fills)
  const metrics = metricsOf(equity, price, daily, fills, to - from)
  const fees = fills.length * 0.3
  const gas = Math.floor(fills.length / 2) * 0.25
  const benchmark = (end: number) => ({ endValue: end, return: startValue > 0 ? end / startValue - 1 : 0, excess: endValue - end })
  return {
    version: 2,
    config: 'config/grid.yaml',
    quotes: 'data/eth-usdc-2024-03.jsonl.gz',
    seed: 42,
    from,
    to,
    pair: { base: 'ETH', quote: 'USDC' },
    tradesHash: 'a3f1c2d4e5b60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90',
    summary: {
      startValue,
      endValue,
      pnl: endValue - startValue,
      benchmarks: { buyAndHold: benchmark(buyAndHoldEnd), holdStart: benchmark(holdStartEnd) },
      executionPrice:
        fills.length > 0
          ? fills.reduce((sum, fill) => sum + fill.quoteAmount, 0) / fills.reduce((sum, fill) => sum + fill.baseAmount, 0)
          : null,
      averagePrice: price.length > 0 ? mean(price.map(([, value]) => value)) : null,
      slippageBps:
        slippages.length > 0
          ? {
              mean: mean(slippages),
              p50: slippages[Math.floor(slippages.length * 0.5)] as number,
              p95: slippages[Math.min(slippages.length - 1, Math.floor(slippages.length * 0.95))] as number,
            }
          : null,
      fees,
      gas,
      fillRate: 0.8,
      ordersByStatus: { COMPLETED: fillCount, EXPIRED: Math.ceil(fillCount / 4) },
      trades: fills.length,
      startHoldings: { base: 1, quote: 3000 },
      endHoldings: { base: 1.2, quote: endValue - 1.2 * endPrice },
      strategyErrors: 0,
      fillModel: options.fillModel ?? 'realistic',
      metrics,
    },
    series: { equity, buyAndHold, holdStart, price, drawdown: drawdownOf(equity).drawdown },
    daily,
    fills,
    strategies: [
      {
        name,
        orders: { COMPLETED: fillCount, EXPIRED: Math.ceil(fillCount / 4) },
        fills: fills.length,
        bought: fills.filter((fill) => fill.side === 'BUY').reduce((sum, fill) => sum + fill.baseAmount, 0),
        sold: fills.filter((fill) => fill.side === 'SELL').reduce((sum, fill) => sum + fill.baseAmount, 0),
        fees,
        gas,
        pnl: endValue - startValue,
        errors: 0,
        roundTrips: metrics.roundTrips,
      },
    ],
    warnings: options.warnings ?? [],
  }
}
