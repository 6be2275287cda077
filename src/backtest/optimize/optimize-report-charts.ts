import type { OptimizeConfig, ParameterSpace } from '../../config/optimize-schema.js'
import { type Axis, type ChartDot, type ChartGuide, type ChartLine, type ChartModel, valueAxis, valueTicks } from '../report-charts.js'
import { formatCompact, formatDuration, formatReturn } from '../report-format.js'
import type { OptimizeReport, TrialFigures } from './optimize.js'
import { formatScore, formatValue, type Objective, parameterLabels, trialNote } from './optimize-report-figures.js'
import { gridValues, type ParameterValue } from './space.js'
import type { Window } from './walk-forward.js'

// The optimisation report's charts, as chart models that report-svg.ts draws: the in-sample objective against each
// parameter (one point per candidate and fold, the fold winners and the recommended value marked), and each fold's
// winner in sample against out of sample (score, and return per day).

/** Fold colours cycle through this many classes (fold-0 … fold-7). */
export const foldColours = 8

/** A parameter's x axis: where a value sits on it (log10 on a log scale, the index of a choice), and its ticks. */
type ParameterAxis = { position: (value: ParameterValue) => number; axis: Axis; categorical: boolean }

/** Ticks at 1, 2 and 5 × 10^k inside [low, high] (real values, placed at their log10). */
function logTicks(low: number, high: number): { at: number; label: string }[] {
  const ticks: { at: number; label: string }[] = []
  for (let power = Math.floor(Math.log10(low)); 10 ** power <= high; power++) {
    for (const factor of [1, 2, 5]) {
      const value = Number((factor * 10 ** power).toPrecision(12))
      if (value >= low && value <= high) ticks.push({ at: Math.log10(value), label: formatCompact(value) })
    }
  }
  return ticks
}

function parameterAxis(space: ParameterSpace | undefined, values: readonly ParameterValue[]): ParameterAxis {
  if (space === undefined || 'choices' in space || values.some((value) => typeof value !== 'number')) {
    const categories: ParameterValue[] = space && 'choices' in space ? [...space.choices] : []
    for (const value of values) if (!categories.includes(value)) categories.push(value)
    return {
      position: (value) => categories.indexOf(value),
      axis: { min: -0.5, max: categories.length - 0.5, ticks: categories.map((value, at) => ({ at, label: formatValue(value) })) },
      categorical: true,
    }
  }
  const { min, max, step, scale } = space.range
  const log = scale === 'log'
  const position = (value: ParameterValue) => (log ? Math.log10(Number(value)) : Number(value))
  const numbers = [min, max, ...values.map(Number)]
  const low = Math.min(...numbers)
  const high = Math.max(...numbers)
  const from = log ? Math.log10(low) : low
  const to = log ? Math.log10(high) : high
  const pad = to > from ? (to - from) * 0.06 : 0.5
  const grid = step === undefined ? [] : gridValues(space)
  const ticks =
    grid.length >= 2 && grid.length <= 12
      ? grid.map((value) => ({ at: position(value), label: formatCompact(Number(value)) }))
      : log
        ? logTicks(low, high)
        : valueTicks(low, high, formatCompact)
  return {
    position,
    axis: {
      min: from - pad,
      max: to + pad,
      ticks: ticks.length >= 2 ? ticks : [low, high].map((value) => ({ at: position(value), label: formatCompact(value) })),
    },
    categorical: false,
  }
}

/**
 * The y axis of figures some of which are missing: round ticks over the values, and below them a strip for the
 * missing (crosses on the tick `label`).
 */
function axisWithMissing(
  values: readonly number[],
  hasMissing: boolean,
  format: (value: number) => string,
  label: string,
): { axis: Axis; missingAt: number | null } {
  const axis = values.length > 0 ? valueAxis(values, format) : { min: 0, max: 1, ticks: [] }
  if (!hasMissing) return { axis, missingAt: null }
  const strip = (axis.max - axis.min) * 0.16
  const missingAt = axis.min - strip / 2
  return { axis: { min: axis.min - strip, max: axis.max, ticks: [...axis.ticks, { at: missingAt, label }] }, missingAt }
}

function emptyChart(id: string): Omit<ChartModel, 'x' | 'y'> {
  return { id, readout: false, unit: 'value', lines: [], markers: [], bars: [], bands: [], guides: [], dots: [], empty: null }
}

/** A candidate's values in words: `lowerPrice 2000, levels 7`. */
function valuesText(report: OptimizeReport, labels: readonly string[], candidate: number): string {
  const values = report.candidates[candidate]?.values ?? []
  return labels.map((label, at) => `${label} ${formatValue(values[at] as ParameterValue)}`).join(', ')
}

function figuresText(figures: TrialFigures, objective: Objective): string {
  const parts = [
    figures.score === null ? `no ${objective}` : `${objective} ${formatScore(figures.score, objective)}`,
    figures.return === null ? '' : `return ${formatReturn(figures.return)}`,
    figures.trades === null ? '' : `${figures.trades} trades`,
  ].filter(Boolean)
  const note = trialNote(figures)
  return `${parts.join(', ')}${note ? `\n${note.text === 'trial failed' ? `trial failed: ${note.title}` : note.text}` : ''}`
}

/**
 * One chart per parameter: x its value (log scale when the space says so, one column per choice), y the in-sample
 * score of every candidate in every fold (its last halving round), coloured by fold and spread a little per fold so
 * that the folds' points at one value stay apart. The fold winners are diamonds; the recommended value a vertical
 * guide; a trial that broke a limit is hollow; one without a score is a cross on the strip at the bottom (its tooltip says why).
 */
export function buildObjectiveCharts(report: OptimizeReport, space: OptimizeConfig['space']): ChartModel[] {
  const labels = parameterLabels(report.parameters)
  const folds = report.folds.length
  const rows = report.folds.flatMap((fold) => fold.ranking.map((row) => ({ fold, row })))
  const scores = rows.flatMap(({ row }) => (row.score === null ? [] : [row.score]))
  const y = axisWithMissing(
    scores,
    rows.some(({ row }) => row.score === null),
    (value) => (report.objective === 'return' || report.objective === 'excess' ? `${formatCompact(value * 100)} %` : formatCompact(value)),
    'no score',
  )
  // headroom for the recommended value's label, above the best points (which the label would cover)
  const yAxis: Axis = report.recommendation ? { ...y.axis, max: y.axis.max + (y.axis.max - y.axis.min) * 0.1 } : y.axis
  return report.parameters.map((path, at) => {
    const parameterValueOf = (candidate: number) => report.candidates[candidate]?.values[at] as ParameterValue
    const x = parameterAxis(
      space[path],
      report.candidates.map((candidate) => candidate.values[at] as ParameterValue),
    )
    const span = x.axis.max - x.axis.min
    const spread = x.categorical ? Math.min(0.08, 0.5 / folds) : Math.min(0.012, 0.06 / folds) * span
    const dots: ChartDot[] = rows.map(({ fold, row }): ChartDot => {
      const winner = fold.winner === row.candidate
      const title = [
        `Fold ${fold.index + 1}, candidate #${row.candidate}${winner ? ' (the fold’s winner)' : ''}`,
        valuesText(report, labels, row.candidate),
        `in sample: ${figuresText(row, report.objective)}`,
      ]
      return {
        x: x.position(parameterValueOf(row.candidate)) + (fold.index - (folds - 1) / 2) * spread,
        y: row.score ?? (y.missingAt as number),
        shape: row.score === null ? 'cross' : winner ? 'diamond' : 'circle',
        classes: [
          `fold-${fold.index % foldColours}`,
          winner ? 'winner' : '',
          row.score !== null && row.excluded !== undefined ? 'hollow' : '',
          row.score === null ? 'missing' : '',
        ]
          .filter(Boolean)
          .join(' '),
        title: title.join('\n'),
      }
    })
    // the winners on top
    dots.sort((left, right) => Number(left.shape === 'diamond') - Number(right.shape === 'diamond'))
    const recommended = report.recommendation?.values[path]
    const guides: ChartGuide[] = []
    if (recommended !== undefined) guides.push({ axis: 'x', at: x.position(recommended), label: `recommended ${formatValue(recommended)}` })
    return {
      ...emptyChart(`chart-objective-${at}`),
      x: x.axis,
      y: yAxis,
      guides,
      dots,
      empty: rows.length === 0 ? 'No in-sample trial to show.' : null,
    }
  })
}

const dayMs = 86_400_000

function perDay(value: number, window: Window): number {
  return value / ((window.to - window.from) / dayMs)
}

/**
 * Each fold's winner in sample (left) and out of sample (right), joined by a line: its score, or its return per day
 * (returns over windows of different lengths compare only per day, as the walk-forward efficiency does).
 */
export function buildFoldChart(report: OptimizeReport, figure: 'score' | 'return'): ChartModel {
  const objective = report.objective
  const folds = report.folds
  const scoreIsReturn = figure === 'score' && (objective === 'return' || objective === 'excess')
  const percent = figure === 'return' || scoreIsReturn
  const figureOf = (figures: TrialFigures | null, window: Window): number | null => {
    if (!figures) return null
    if (figure === 'score') return figures.score
    return figures.return === null ? null : perDay(figures.return, window)
  }
  const sides = folds.flatMap((fold) =>
    fold.winner === null
      ? []
      : [
          { fold, side: 'in-sample' as const, figures: fold.inSampleScore, window: fold.inSample, offset: -0.14 },
          { fold, side: 'out-of-sample' as const, figures: fold.outOfSampleScore, window: fold.outOfSample, offset: 0.14 },
        ],
  )
  const values = sides.map((entry) => figureOf(entry.figures, entry.window))
  const y = axisWithMissing(
    values.filter((value): value is number => value !== null),
    values.some((value) => value === null),
    (value) => (percent ? `${formatCompact(value * 100)} %` : formatCompact(value)),
    'no value',
  )
  const describe = (entry: (typeof sides)[number], value: number | null): string => {
    const where = entry.side === 'in-sample' ? 'in sample' : 'out of sample'
    const head = `Fold ${entry.fold.index + 1} ${where}, candidate #${entry.fold.winner}`
    const length = formatDuration(entry.window.to - entry.window.from)
    if (value === null) {
      const why = entry.figures ? figuresText(entry.figures, objective) : 'not run'
      return `${head}\nno ${figure === 'score' ? objective : 'return'}: ${why}`
    }
    if (figure === 'score') return `${head}\n${objective} ${formatScore(value, objective)} over ${length}`
    return `${head}\nreturn ${formatReturn(entry.figures?.return ?? 0)} over ${length}: ${formatReturn(value)} per day`
  }
  const dots: ChartDot[] = sides.map((entry, at): ChartDot => {
    const value = values[at] ?? null
    return {
      x: entry.fold.index + entry.offset,
      y: value ?? (y.missingAt as number),
      shape: value === null ? 'cross' : 'circle',
      classes: `${entry.side}${value === null ? ' missing' : ''}`,
      title: describe(entry, value),
    }
  })
  // sides come in pairs (in sample, out of sample) per fold with a winner: joined when both have a value
  const lines: ChartLine[] = []
  for (let at = 0; at + 1 < sides.length; at += 2) {
    const inSample = dots[at] as ChartDot
    const outOfSample = dots[at + 1] as ChartDot
    if (values[at] === null || values[at + 1] === null) continue
    lines.push({
      name: 'pair',
      label: `Fold ${(sides[at] as (typeof sides)[number]).fold.index + 1}: in sample to out of sample`,
      stroke: 'solid',
      area: false,
      points: [inSample.x, inSample.y, outOfSample.x, outOfSample.y],
    })
  }
  const noWinner = folds.filter((fold) => fold.winner === null).length
  return {
    ...emptyChart(`chart-folds-${figure}`),
    x: {
      min: -0.5,
      max: folds.length - 0.5,
      ticks: folds.map((fold) => ({ at: fold.index, label: `Fold ${fold.index + 1}${fold.winner === null ? ' (no winner)' : ''}` })),
    },
    y: y.axis,
    lines,
    dots,
    empty: noWinner === folds.length ? 'No fold has a winner, so there is nothing to compare out of sample.' : null,
  }
}
