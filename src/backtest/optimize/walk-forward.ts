import type { OptimizeConfig } from '../../config/optimize-schema.js'
import type { BacktestSummary } from '../backtest-result.js'

// Walk-forward planning (pure): the folds' in-sample and out-of-sample windows, the objective and the ranking.

export type Window = { from: number; to: number }
export type Fold = { index: number; inSample: Window; outOfSample: Window }

const units = { m: 60_000, h: 3_600_000, d: 86_400_000 } as const

/**
 * k folds over [from, to): the out-of-sample windows follow one another without overlap and end at `to`; each fold's
 * in-sample window ends where its out-of-sample one starts. Rolling: every in-sample window has the same length;
 * anchored: every in-sample window starts at `from` (and grows). `inSample` is a fraction of a rolling fold's window
 * (in-sample + out-of-sample) or a duration ("3d") of the first in-sample window.
 */
export function foldWindows(period: Window, walkForward: OptimizeConfig['walkForward']): Fold[] {
  const { folds, inSample, mode } = walkForward
  const total = period.to - period.from
  const inSampleMs =
    typeof inSample === 'number'
      ? Math.floor((total * inSample) / (inSample + folds * (1 - inSample)))
      : Math.round(Number(inSample.slice(0, -1)) * units[inSample.slice(-1) as keyof typeof units])
  const outOfSampleMs = Math.floor((total - inSampleMs) / folds)
  if (inSampleMs < 1 || outOfSampleMs < 1) {
    throw new Error(
      `expected a period long enough for ${folds} folds after an in-sample window of ${inSampleMs} ms, received ${total} ms (${new Date(period.from).toISOString()} → ${new Date(period.to).toISOString()})`,
    )
  }
  const start = period.from + inSampleMs
  return Array.from({ length: folds }, (_, index) => {
    const oosFrom = start + index * outOfSampleMs
    const oosTo = index === folds - 1 ? period.to : oosFrom + outOfSampleMs
    return {
      index,
      inSample: { from: mode === 'anchored' ? period.from : oosFrom - inSampleMs, to: oosFrom },
      outOfSample: { from: oosFrom, to: oosTo },
    }
  })
}

/** Successive halving's windows in [from, to): round r of `rounds` uses the first keep^(rounds − r) of it; the last the whole. */
export function halvingWindows(window: Window, halving: { keep: number; rounds: number }): Window[] {
  return Array.from({ length: halving.rounds + 1 }, (_, round) => ({
    from: window.from,
    to: window.from + Math.max(1, Math.floor((window.to - window.from) * halving.keep ** (halving.rounds - round))),
  }))
}

export type Objective = OptimizeConfig['objective']

/** The objective's value of a summary (higher is better); null when the metric cannot be told (too short a window). */
export function objectiveOf(summary: BacktestSummary, objective: Objective): number | null {
  const { metrics } = summary
  switch (objective) {
    case 'sharpe':
      return metrics.sharpe
    case 'sortino':
      return metrics.sortino
    case 'calmar':
      return metrics.calmar
    case 'return':
      return metrics.totalReturn
    case 'excess':
      // the return above buy-and-hold's, as fractions of the starting value
      return metrics.totalReturn - summary.benchmarks.buyAndHold.return
  }
}

/** Why a summary is out of the running (a limit broken), or undefined. */
export function limitBroken(summary: BacktestSummary, limits: OptimizeConfig['limits']): string | undefined {
  if (limits.maxDrawdown !== undefined && summary.metrics.maxDrawdown > limits.maxDrawdown) {
    return `max drawdown ${summary.metrics.maxDrawdown.toFixed(4)} > ${limits.maxDrawdown}`
  }
  if (limits.minTrades !== undefined && summary.trades < limits.minTrades) return `${summary.trades} trades < ${limits.minTrades}`
  return undefined
}

/** A candidate's score on one window: its objective, or why it has none. */
export type Score = { candidate: number; score: number | null; excluded?: string }

/** Best first: scored candidates by score (descending), then the excluded and unscored; ties by candidate index. */
export function rankScores<T extends Score>(scores: readonly T[]): T[] {
  const usable = (score: Score) => score.excluded === undefined && score.score !== null
  return [...scores].sort((left, right) => {
    if (usable(left) !== usable(right)) return usable(left) ? -1 : 1
    if (usable(left) && left.score !== right.score) return (right.score as number) - (left.score as number)
    return left.candidate - right.candidate
  })
}

/**
 * Walk-forward efficiency: the mean out-of-sample return per day over the mean in-sample return per day (returns as
 * fractions, divided by their window's length in days, not compounded). 1: out of sample kept the in-sample pace;
 * null when the in-sample mean is 0.
 */
export function walkForwardEfficiency(
  folds: readonly { inSample: Window; outOfSample: Window; isReturn: number; oosReturn: number }[],
): number | null {
  if (folds.length === 0) return null
  const perDay = (value: number, window: Window) => value / ((window.to - window.from) / units.d)
  const isRate = folds.reduce((sum, fold) => sum + perDay(fold.isReturn, fold.inSample), 0) / folds.length
  const oosRate = folds.reduce((sum, fold) => sum + perDay(fold.oosReturn, fold.outOfSample), 0) / folds.length
  return isRate === 0 ? null : oosRate / isRate
}
