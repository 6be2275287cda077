import { mean, sampleStandardDeviation } from 'simple-statistics'
import type { BacktestMetrics, RoundTrips, SeriesPoint } from './backtest-result.js'

// Figures of an equity curve: pure functions of `[t, value]` series (t in unix ms, values in the quote token).
// Returns and rates are fractions (0.05 = 5 %); durations are ms; a year is 365 days, since crypto trades every day.

export const dayMs = 86_400_000
export const yearMs = 365 * dayMs

/** The periods returns are measured over, longest first. */
export const returnPeriods = { day: dayMs, hour: 3_600_000, minute: 60_000 } as const
export type ReturnPeriod = keyof typeof returnPeriods

/** Fewer returns than this make a standard deviation too rough: a shorter period is taken. */
export const minimumReturns = 30

/** A deviation below this (a fraction per period) is rounding, not risk: the ratio dividing by it is null. */
const negligible = 1e-12

/** The share of equity in the base token from which a moment counts as exposed to its price. */
export const exposureThreshold = 0.01

/** End value over start value, minus 1; 0 when the start value is not positive (nothing to return on). */
export function totalReturnOf(startValue: number, endValue: number): number {
  return startValue > 0 ? endValue / startValue - 1 : 0
}

/** Runs shorter than this get no annual growth rate: two days' return raised to the 182nd power says nothing. */
export const minimumAnnualisedMs = 30 * dayMs

/**
 * Compound annual growth rate: (end / start)^(year / duration) − 1. Null under 30 days (minimumAnnualisedMs), with a
 * non-positive start or end value, or when it overflows.
 */
export function compoundAnnualGrowthOf(startValue: number, endValue: number, durationMs: number): number | null {
  if (durationMs < minimumAnnualisedMs || !(startValue > 0) || !(endValue > 0)) return null
  const cagr = (endValue / startValue) ** (yearMs / durationMs) - 1
  return Number.isFinite(cagr) ? cagr : null
}

/** The pair's price at the end over its price at the start, minus 1; null without a positive starting price. */
export function marketChangeOf(price: readonly SeriesPoint[]): number | null {
  const first = price[0]?.[1]
  const last = price[price.length - 1]?.[1]
  if (first === undefined || last === undefined || !(first > 0)) return null
  return last / first - 1
}

/**
 * The longest period (day, hour, minute) that fits at least `minimumReturns` times into the duration; a minute when
 * none does.
 */
export function chooseReturnPeriod(durationMs: number): ReturnPeriod {
  for (const period of ['day', 'hour'] as const) if (Math.floor(durationMs / returnPeriods[period]) >= minimumReturns) return period
  return 'minute'
}

/** Periods in a year of 365 days: 365 for a day, 8,760 for an hour, 525,600 for a minute. */
export function periodsPerYearOf(periodMs: number): number {
  return yearMs / periodMs
}

/**
 * Simple returns over whole periods from the series' first point: the value at t0 + k × period is the last point at or
 * before it, and r_k = value_k / value_(k−1) − 1. A trailing part period is left out, and so is a return from a
 * non-positive value. The grid starts at the first point, so shifting the series in time gives the same returns.
 */
export function periodReturnsOf(series: readonly SeriesPoint[], periodMs: number): number[] {
  const first = series[0]
  const last = series[series.length - 1]
  if (!first || !last || !(periodMs > 0)) return []
  const periods = Math.floor((last[0] - first[0]) / periodMs)
  const returns: number[] = []
  let index = 0
  let previous = first[1]
  for (let k = 1; k <= periods; k++) {
    const boundary = first[0] + k * periodMs
    while (index + 1 < series.length && (series[index + 1] as SeriesPoint)[0] <= boundary) index++
    const value = (series[index] as SeriesPoint)[1]
    if (previous > 0) returns.push(value / previous - 1)
    previous = value
  }
  return returns
}

/** An annual rate as the rate per period that compounds to it: (1 + annual)^(1 / periodsPerYear) − 1. */
export function periodRateOf(annualRate: number, periodsPerYear: number): number {
  return (1 + annualRate) ** (1 / periodsPerYear) - 1
}

/** Annualised volatility: the sample standard deviation of the period returns × √periodsPerYear; null under 2 returns. */
export function annualisedVolatilityOf(returns: readonly number[], periodsPerYear: number): number | null {
  if (returns.length < 2) return null
  return sampleStandardDeviation(returns) * Math.sqrt(periodsPerYear)
}

/**
 * Sharpe ratio, annualised: mean(r − rf) / sd(r − rf) × √periodsPerYear, with rf the risk-free rate per period
 * (periodRateOf) and sd the sample standard deviation. Null under 2 returns or without deviation.
 */
export function sharpeRatioOf(returns: readonly number[], periodRiskFree: number, periodsPerYear: number): number | null {
  if (returns.length < 2) return null
  const excess = returns.map((value) => value - periodRiskFree)
  const deviation = sampleStandardDeviation(excess)
  if (!(deviation > negligible)) return null
  return (mean(excess) / deviation) * Math.sqrt(periodsPerYear)
}

/**
 * Sortino ratio, annualised: mean(r − rf) / dd × √periodsPerYear, where the downside deviation
 * dd = √(Σ min(0, r − rf)² / n) counts only returns below the risk-free rate, over all n returns. Null under 2 returns
 * or without a return below the risk-free rate.
 */
export function sortinoRatioOf(returns: readonly number[], periodRiskFree: number, periodsPerYear: number): number | null {
  if (returns.length < 2) return null
  const excess = returns.map((value) => value - periodRiskFree)
  const downside = Math.sqrt(mean(excess.map((value) => Math.min(0, value) ** 2)))
  if (!(downside > negligible)) return null
  return (mean(excess) / downside) * Math.sqrt(periodsPerYear)
}

/** Calmar ratio: CAGR / maximum drawdown; null without either. */
export function calmarRatioOf(cagr: number | null, maxDrawdown: number): number | null {
  if (cagr === null || !(maxDrawdown > negligible)) return null
  return cagr / maxDrawdown
}

/** Each point's fall from the running peak, as a fraction of that peak: (peak − value) / peak, 0 at a peak. */
export function drawdownSeriesOf(equity: readonly SeriesPoint[]): SeriesPoint[] {
  let peak = Number.NEGATIVE_INFINITY
  return equity.map(([t, value]): SeriesPoint => {
    if (value > peak) peak = value
    return [t, peak > 0 ? (peak - value) / peak : 0]
  })
}

export type MaxDrawdown = {
  /** (peak − trough) / peak of the deepest fall, 0 without one. */
  depth: number
  /** When the deepest fall started (the last time at its peak), its trough, and when equity was back at that peak. */
  window: { from: number; to: number; recoveredAt: number | null } | null
  /** The longest stretch from a peak to the first point back at it (or to the end, when it never came back). */
  longestUnderwaterMs: number
}

/** The deepest fall of equity from a previous peak, its window, and the longest time spent under a peak. */
export function maxDrawdownOf(equity: readonly SeriesPoint[]): MaxDrawdown {
  let peak = Number.NEGATIVE_INFINITY
  let peakAt = 0
  let underwater = false
  let depth = 0
  let window: MaxDrawdown['window'] = null
  let longestUnderwaterMs = 0
  for (const [t, value] of equity) {
    if (value >= peak) {
      if (underwater) {
        longestUnderwaterMs = Math.max(longestUnderwaterMs, t - peakAt)
        if (window && window.from === peakAt && window.recoveredAt === null) window.recoveredAt = t
        underwater = false
      }
      peak = value
      peakAt = t
      continue
    }
    underwater = true
    const fall = peak > 0 ? (peak - value) / peak : 0
    if (fall > depth) {
      depth = fall
      window = { from: peakAt, to: t, recoveredAt: null }
    }
  }
  const end = equity[equity.length - 1]?.[0]
  if (underwater && end !== undefined) longestUnderwaterMs = Math.max(longestUnderwaterMs, end - peakAt)
  return { depth, window, longestUnderwaterMs }
}

/** A moment of the wallet: its equity and the part of it in the base token, quote token. */
export type ExposureSample = { t: number; equity: number; baseValue: number }

/**
 * Share of the time with at least `exposureThreshold` of equity in the base token: each sample holds until the next,
 * and the exposed stretches are summed over the whole span. A single sample counts alone.
 */
export function exposureOf(samples: readonly ExposureSample[]): number {
  const exposed = (sample: ExposureSample) => sample.baseValue > 0 && sample.baseValue >= exposureThreshold * sample.equity
  let total = 0
  let inMarket = 0
  for (let index = 0; index + 1 < samples.length; index++) {
    const sample = samples[index] as ExposureSample
    const span = (samples[index + 1] as ExposureSample).t - sample.t
    total += span
    if (exposed(sample)) inMarket += span
  }
  if (total > 0) return Math.min(1, inMarket / total)
  const last = samples[samples.length - 1]
  return last && exposed(last) ? 1 : 0
}

/** An amount (fees, gas) as a share of the quote-token volume traded; null without volume. */
export function shareOfVolume(amount: number, volume: number): number | null {
  return volume > 0 ? amount / volume : null
}

export type MetricsInputs = {
  equity: readonly SeriesPoint[]
  price: readonly SeriesPoint[]
  exposure: readonly ExposureSample[]
  startValue: number
  endValue: number
  /** Annual, a fraction: backtest.metrics.riskFreeRate. */
  riskFreeRate: number
  fees: number
  gas: number
  /** Quote token traded (every fill's quote-token side). */
  volume: number
  roundTrips: RoundTrips | null
}

/** Every figure of `summary.metrics` from the curves of a run. */
export function backtestMetricsOf(inputs: MetricsInputs): BacktestMetrics {
  const { equity } = inputs
  const durationMs = equity.length > 0 ? (equity[equity.length - 1] as SeriesPoint)[0] - (equity[0] as SeriesPoint)[0] : 0
  const period = chooseReturnPeriod(durationMs)
  const periodMs = returnPeriods[period]
  const periodsPerYear = periodsPerYearOf(periodMs)
  const returns = periodReturnsOf(equity, periodMs)
  const riskFree = periodRateOf(inputs.riskFreeRate, periodsPerYear)
  const cagr = compoundAnnualGrowthOf(inputs.startValue, inputs.endValue, durationMs)
  const drawdown = maxDrawdownOf(equity)
  return {
    totalReturn: totalReturnOf(inputs.startValue, inputs.endValue),
    cagr,
    marketChange: marketChangeOf(inputs.price),
    volatility: annualisedVolatilityOf(returns, periodsPerYear),
    sharpe: sharpeRatioOf(returns, riskFree, periodsPerYear),
    sortino: sortinoRatioOf(returns, riskFree, periodsPerYear),
    calmar: calmarRatioOf(cagr, drawdown.depth),
    maxDrawdown: drawdown.depth,
    maxDrawdownWindow: drawdown.window,
    maxDrawdownDurationMs: drawdown.longestUnderwaterMs,
    exposure: exposureOf(inputs.exposure),
    feesShareOfVolume: shareOfVolume(inputs.fees, inputs.volume),
    gasShareOfVolume: shareOfVolume(inputs.gas, inputs.volume),
    returns: { period, periodMs, periodsPerYear, riskFreeRate: inputs.riskFreeRate, count: returns.length },
    roundTrips: inputs.roundTrips,
  }
}
