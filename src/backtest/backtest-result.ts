import { z } from 'zod'
import { BaseError } from '../errors/base.js'

// What a backtest hands to its report: display numbers (JS numbers, already scaled to whole tokens), not the raw
// bigints the engine keeps. Values are in the pair's quote token (USDC), amounts of the traded token in its base
// token (ETH), prices in quote per base. Times are unix ms.

const finite = z.number()
const fraction = z.number().min(0).max(1)
const count = z.number().int().nonnegative()
const time = z.number().int().nonnegative()
const countsByStatus = z.record(z.string(), count)

/**
 * `[t, value]` points, t in unix ms, in time order. Checked by hand rather than with a zod tuple per point: a result
 * can hold millions of points, and this is about ten times faster.
 */
const series = z
  .custom<SeriesPoint[]>((value) => Array.isArray(value), { error: 'expected an array of [t, value] points' })
  .superRefine((points, context) => {
    let previous = 0
    for (let index = 0; index < points.length; index++) {
      const point: unknown = points[index]
      if (!Array.isArray(point) || point.length !== 2) {
        context.addIssue({ code: 'custom', message: 'expected a [t, value] pair', path: [index] })
        return
      }
      const [t, value] = point as [unknown, unknown]
      if (typeof t !== 'number' || !Number.isSafeInteger(t) || t < 0) {
        context.addIssue({
          code: 'custom',
          message: `expected a time in unix ms (a whole number, 0 or more), received ${String(t)}`,
          path: [index, 0],
        })
        return
      }
      if (typeof value !== 'number' || !Number.isFinite(value)) {
        context.addIssue({ code: 'custom', message: `expected a finite number, received ${String(value)}`, path: [index, 1] })
        return
      }
      if (t < previous) {
        context.addIssue({ code: 'custom', message: `expected points in time order, received ${t} after ${previous}`, path: [index, 0] })
        return
      }
      previous = t
    }
  })

const holdingsSchema = z.object({ base: finite, quote: finite })

export const backtestFillSchema = z.object({
  t: time,
  strategy: z.string(),
  orderId: z.string(),
  side: z.enum(['BUY', 'SELL']),
  /** Quote per base. */
  price: z.number().positive(),
  /** What the order was planned at (a TWAP slice: its own quote; a LIMIT: its limit), quote per base. */
  plannedPrice: z.number().positive().nullable(),
  baseAmount: z.number().nonnegative(),
  quoteAmount: z.number().nonnegative(),
  /** Against the price the order was planned at; positive = worse for the trader. */
  slippageBps: finite,
  mode: z.enum(['delta', 'market', 'otc']),
  /** Fee and gas of this fill, quote token. */
  fee: finite,
  gas: finite,
})

/**
 * Round trips: every sell matched first-in first-out against earlier buys of the same strategy (and every buy against
 * earlier sells, for a strategy that starts short of the base token). Null for a strategy with no closed round trip.
 */
export const roundTripsSchema = z.object({
  /** Closed round trips (one per matched lot: a sell closing two buys counts two). */
  trades: count,
  wins: count,
  losses: count,
  winRate: fraction,
  /** Mean profit of the winning trips and mean loss of the losing ones (a positive number), quote token, net of fees. */
  averageWin: finite,
  averageLoss: finite,
  /** Gross profit over gross loss; null without a losing trip. */
  profitFactor: z.number().nonnegative().nullable(),
  /** Mean profit per trip, quote token: winRate × averageWin − (1 − winRate) × averageLoss. */
  expectancy: finite,
})

export const backtestStrategySchema = z.object({
  name: z.string(),
  orders: countsByStatus,
  fills: count,
  /** Base token bought and sold. */
  bought: finite,
  sold: finite,
  fees: finite,
  gas: finite,
  pnl: finite,
  /** Exceptions the strategy threw that the runtime quarantined (counted, not fatal). */
  errors: count,
  roundTrips: roundTripsSchema.nullable(),
})

/** A benchmark the strategy is measured against, valued like the strategy (quote token, the replay's mid price). */
export const benchmarkSchema = z.object({
  /** What the benchmark's holdings are worth at the end. */
  endValue: finite,
  /** The benchmark's return over the period, a fraction of the starting value. */
  return: finite,
  /** The strategy's end value minus the benchmark's: positive when the strategy beat it. */
  excess: finite,
})

/**
 * Figures computed from the equity series (metrics.ts). Ratios are annualised from returns over `returns.periodMs`;
 * each is null when the series cannot give it (fewer than two periods, no deviation, a period shorter than a day for
 * the annualised return).
 */
export const backtestMetricsSchema = z.object({
  /** End value over start value, minus 1. */
  totalReturn: finite,
  /** Compound annual growth rate; null for a period shorter than 30 days or a non-positive value. */
  cagr: finite.nullable(),
  /** The pair's price at the end over its price at the start, minus 1. */
  marketChange: finite.nullable(),
  /** Annualised standard deviation of the period returns. */
  volatility: finite.nullable(),
  sharpe: finite.nullable(),
  sortino: finite.nullable(),
  /** CAGR over the maximum drawdown; null without a drawdown. */
  calmar: finite.nullable(),
  /** Largest fall of equity from a previous peak, as a fraction of that peak (above 1 when equity went below zero). */
  maxDrawdown: z.number().nonnegative(),
  /** The peak before that fall, its trough, and when equity was back at the peak (null: not by the end). */
  maxDrawdownWindow: z.object({ from: time, to: time, recoveredAt: time.nullable() }).nullable(),
  /** Longest time spent below a previous peak, ms (to the end when not recovered). */
  maxDrawdownDurationMs: count,
  /** Share of the period with part of the wallet in the base token (at least 1 % of equity). */
  exposure: fraction,
  /** Fees and gas over the quote-token volume traded; null without trades. */
  feesShareOfVolume: z.number().nonnegative().nullable(),
  gasShareOfVolume: z.number().nonnegative().nullable(),
  /** How the ratios were computed: the return period, periods per year, the annual risk-free rate, returns used. */
  returns: z.object({
    period: z.enum(['minute', 'hour', 'day']),
    periodMs: count,
    periodsPerYear: z.number().positive(),
    riskFreeRate: finite,
    count,
  }),
  /** All strategies' round trips together; null without a closed trip. */
  roundTrips: roundTripsSchema.nullable(),
})

/** One UTC day of the run (the first and last may be partial). */
export const backtestDaySchema = z.object({
  /** `YYYY-MM-DD`, UTC. */
  day: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
  startValue: finite,
  endValue: finite,
  /** endValue over startValue, minus 1. */
  return: finite,
  trades: count,
  fees: finite,
  gas: finite,
})

export const backtestSummarySchema = z.object({
  startValue: finite,
  endValue: finite,
  pnl: finite,
  /**
   * buyAndHold: the whole starting value in the base token at the first price (the headline's comparison); holdStart:
   * the starting balances kept untouched.
   */
  benchmarks: z.object({ buyAndHold: benchmarkSchema, holdStart: benchmarkSchema }),
  /** Volume-weighted price of all fills, quote per base. */
  executionPrice: z.number().positive().nullable(),
  /** Time-average market price over the period. */
  averagePrice: z.number().positive().nullable(),
  slippageBps: z.object({ mean: finite, p50: finite, p95: finite }).nullable(),
  fees: finite,
  gas: finite,
  fillRate: fraction,
  ordersByStatus: countsByStatus,
  /** Number of fills. */
  trades: count,
  startHoldings: holdingsSchema,
  endHoldings: holdingsSchema,
  strategyErrors: count,
  /** The fill model the run used (src/backtest/README.md). */
  fillModel: z.enum(['ideal', 'realistic']),
  metrics: backtestMetricsSchema,
})

export const backtestResultSchema = z.object({
  version: z.literal(2),
  config: z.string(),
  quotes: z.string(),
  seed: z.number().int(),
  from: time,
  to: time,
  /** Symbols for labels: prices are `quote` per `base`. */
  pair: z.object({ base: z.string(), quote: z.string() }),
  /** Hex digest of the fills: two runs with the same inputs must print the same. */
  tradesHash: z.string().regex(/^(0x)?[0-9a-f]+$/i, { error: 'expected a hex digest' }),
  summary: backtestSummarySchema,
  series: z.object({
    equity: series,
    /** The buy-and-hold benchmark's value. */
    buyAndHold: series,
    /** The starting balances' value. */
    holdStart: series,
    price: series,
    /** Equity's fall from its running peak, a fraction (0 at a peak). */
    drawdown: series,
  }),
  daily: z.array(backtestDaySchema),
  fills: z.array(backtestFillSchema),
  strategies: z.array(backtestStrategySchema),
  /** Caveats the engine found (quote gaps, orders still open at the end, ...), shown above everything else. */
  warnings: z.array(z.string()),
})

export type BacktestResult = z.output<typeof backtestResultSchema>
export type BacktestSummary = BacktestResult['summary']
export type BacktestFill = BacktestResult['fills'][number]
export type BacktestStrategy = BacktestResult['strategies'][number]
export type SeriesPoint = [t: number, value: number]
export type BacktestMetrics = BacktestSummary['metrics']
export type RoundTrips = z.output<typeof roundTripsSchema>
export type BacktestDay = BacktestResult['daily'][number]

/** A backtest result that does not match the schema (a file from another version, or a bug in the engine). Fatal. */
export class BacktestResultError extends BaseError {
  override name = 'BacktestResultError' as const
  constructor(source: string, issues: readonly { path: readonly PropertyKey[]; message: string }[]) {
    const shown = issues.slice(0, 5).map((issue) => `${issue.path.map(String).join('.') || '(root)'}: ${issue.message}`)
    super(`${source} is not a backtest result: ${shown.join('; ')}`, {
      details: { source, issues: issues.length },
      hint: 'Re-run the backtest with this version of deltaflow to write a fresh result.',
    })
  }
}

/** Parses a result read from outside (a JSON file); `source` names it in the error. */
export function parseBacktestResult(value: unknown, source = 'backtest result'): BacktestResult {
  const parsed = backtestResultSchema.safeParse(value)
  if (!parsed.success) throw new BacktestResultError(source, parsed.error.issues)
  return parsed.data
}
