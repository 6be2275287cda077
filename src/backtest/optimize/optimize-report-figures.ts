import { formatAmount, formatReturn, formatSigned, formatTime } from '../report-format.js'
import type { Figure } from '../report-tables.js'
import type { OptimizeReport, TrialFigures } from './optimize.js'
import type { ParameterValue } from './space.js'
import type { Window } from './walk-forward.js'

// How the optimisation report words and formats its figures: scores by objective, a trial's figures as table cells
// (a missing one says why), the parameters' short names, and why there is no winner or no recommendation.

export type Objective = OptimizeReport['objective']
/** The figures of a trial a table shows, in order; the one the objective already is has no column of its own. */
export type FigureKey = 'score' | 'return' | 'sharpe' | 'trades'

export function figureKeysOf(objective: Objective): FigureKey[] {
  return (['score', 'return', 'sharpe', 'trades'] as const).filter((key) => key !== objective)
}

export function figureHeader(key: FigureKey, objective: Objective): string {
  return key === 'score' ? `Score (${objective})` : key === 'return' ? 'Return' : key === 'sharpe' ? 'Sharpe' : 'Trades'
}

/** A score as the objective reads: returns as signed percentages, ratios with three decimals (as the terminal). */
export function formatScore(score: number, objective: Objective): string {
  return objective === 'return' || objective === 'excess' ? formatReturn(score) : formatAmount(score, 3)
}

/** A difference of scores, signed. */
export function formatScoreChange(change: number, objective: Objective): string {
  return objective === 'return' || objective === 'excess' ? formatReturn(change) : formatSigned(change, 3)
}

/** Whether the trial behind these figures ran (a failed one has no figures at all). */
function failed(figures: TrialFigures): boolean {
  return figures.trades === null
}

/** Why a figure of a trial is missing, in a sentence. */
export function missingFigureReason(figures: TrialFigures, key: FigureKey, objective: Objective): string {
  if (failed(figures)) return `The trial failed: ${figures.excluded ?? 'no result'}`
  const what = key === 'score' ? `the ${objective}` : key === 'sharpe' ? 'the Sharpe ratio' : `the ${key}`
  return `No value: ${what} cannot be told on this window (too few returns, or none that varied).`
}

/** One figure of a trial as a table cell's content. */
export function trialFigure(figures: TrialFigures, key: FigureKey, objective: Objective): Figure {
  const value = figures[key]
  if (value === null) return { missing: missingFigureReason(figures, key, objective) }
  if (key === 'score') return { text: formatScore(value, objective), tone: value > 0 ? 'pos' : value < 0 ? 'neg' : '' }
  if (key === 'return') return { text: formatReturn(value) }
  if (key === 'sharpe') return { text: formatAmount(value, 3) }
  return { text: formatAmount(value, 0) }
}

/** The note of a trial: why it is out of the running (failed, or a limit broken), or ''. */
export function trialNote(figures: TrialFigures): { text: string; title: string } | null {
  if (figures.excluded === undefined) return null
  if (failed(figures)) return { text: 'trial failed', title: figures.excluded }
  return { text: `broke a limit: ${figures.excluded}`, title: figures.excluded }
}

/** Short column names: each path's last segment, or the whole path where two would read the same. */
export function parameterLabels(paths: readonly string[]): string[] {
  const last = paths.map((path) => path.split('.').at(-1) ?? path)
  return last.map((label, at) => (last.indexOf(label) === last.lastIndexOf(label) ? label : (paths[at] as string)))
}

export function formatValue(value: ParameterValue): string {
  return String(value)
}

/** `2026-02-25 00:00 → 2026-02-26 04:47` (UTC; the end excluded). */
export function formatWindow(window: Window): string {
  return `${formatTime(window.from)} → ${formatTime(window.to)}`
}

/** Why a fold has no winner: its best candidate failed, broke a limit or has no score. */
export function noWinnerReason(fold: OptimizeReport['folds'][number]): string {
  const best = fold.ranking[0]
  if (!best) return 'No winner: no candidate ran in this fold.'
  if (best.excluded !== undefined && best.trades === null)
    return `No winner: every candidate failed in sample (the first: ${best.excluded}).`
  if (best.excluded !== undefined) return `No winner: every candidate broke a limit in sample (the best: ${best.excluded}).`
  return 'No winner: no candidate has a score in sample (too few returns, or none that varied).'
}

/** Why the optimisation recommends nothing, plainly (a sentence). */
export function noRecommendationReason(report: OptimizeReport): string {
  const winners = report.folds.filter((fold) => fold.winner !== null)
  if (report.candidates.length === 0)
    return `There was no candidate to try: the constraints skipped all ${formatAmount(report.skipped, 0)}.`
  if (winners.length === 0)
    return 'No fold has an in-sample winner: in every fold every candidate failed, broke a limit or had no score (see the rankings).'
  const failures = winners.flatMap((fold) => {
    const figures = fold.outOfSampleScore
    if (!figures) return [`fold ${fold.index + 1}: no out-of-sample run`]
    if (figures.excluded !== undefined)
      return [`fold ${fold.index + 1}: ${failed(figures) ? 'failed' : 'broke a limit'} (${figures.excluded})`]
    if (figures.score === null) return [`fold ${fold.index + 1}: no score`]
    return []
  })
  return `No fold winner has a usable score on every out-of-sample window it was tried on${
    failures.length > 0 ? ` (${failures.join('; ')})` : ''
  }. A recommendation needs out-of-sample evidence; the in-sample ranking alone is not enough.`
}
