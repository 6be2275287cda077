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
  baseAmount: z.number().nonnegative(),
  quoteAmount: z.number().nonnegative(),
  /** Against the price the order was planned at; positive = worse for the trader. */
  slippageBps: finite,
  mode: z.enum(['delta', 'market', 'otc']),
  /** Fee and gas of this fill, quote token. */
  fee: finite,
  gas: finite,
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
})

export const backtestSummarySchema = z.object({
  startValue: finite,
  endValue: finite,
  /** What the starting holdings would be worth at the end, untouched. */
  holdEndValue: finite,
  pnl: finite,
  pnlVsHold: finite,
  /** Volume-weighted price of all fills, quote per base. */
  executionPrice: z.number().positive().nullable(),
  /** Time-average market price over the period. */
  averagePrice: z.number().positive().nullable(),
  slippageBps: z.object({ mean: finite, p50: finite, p95: finite }).nullable(),
  fees: finite,
  gas: finite,
  fillRate: fraction,
  ordersByStatus: countsByStatus,
  /** Largest fall of equity from a previous peak, as a fraction of that peak (above 1 when equity went below zero). */
  maxDrawdown: z.number().nonnegative(),
  /** When that fall started (the peak) and ended (the trough); null without a drawdown. */
  maxDrawdownWindow: z.object({ from: time, to: time }).nullable(),
  /** Number of fills. */
  trades: count,
  startHoldings: holdingsSchema,
  endHoldings: holdingsSchema,
  strategyErrors: count,
})

export const backtestResultSchema = z.object({
  version: z.literal(1),
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
  series: z.object({ equity: series, hold: series, price: series }),
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
