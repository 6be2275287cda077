import type { OptimizeReport, TrialFigures } from './optimize.js'
import { noRecommendationReason } from './optimize-report-figures.js'

// The optimisation as the terminal shows it (tables) and as --json prints it (one document, keys sorted).

/** Rows of the in-sample ranking shown per fold. */
export const shownRanking = 10

function number(value: number | null | undefined, digits = 3): string {
  return value === null || value === undefined ? '-' : value.toFixed(digits)
}

function percent(value: number | null | undefined): string {
  return value === null || value === undefined ? '-' : `${(value * 100).toFixed(2)} %`
}

function day(time: number): string {
  return new Date(time).toISOString().replace(/(:00)?\.000Z$/, 'Z')
}

function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)))
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) => cell.padEnd(widths[column] ?? 0))
      .join('  ')
      .trimEnd()
  return [line(header), line(widths.map((width) => '-'.repeat(width))), ...rows.map(line)].join('\n')
}

/** Why a trial has no figures, on one line: a failed trial's error keeps its first line (--json has it whole). */
function note(figures: Pick<TrialFigures, 'excluded'> | null): string {
  return figures?.excluded?.split('\n', 1)[0] ?? ''
}

export function formatOptimizeReport(report: OptimizeReport): string {
  const short = report.parameters.map((path) => path.split('.').at(-1) ?? path)
  const valuesOf = (candidate: number) => report.candidates[candidate]?.values.map(String) ?? []
  const out: string[] = []
  out.push(
    `${report.candidates.length} candidates (${report.sampler}, seed ${report.seed}${report.skipped > 0 ? `, ${report.skipped} skipped by the constraints` : ''}), ${report.folds.length} folds, ${report.trials} trials; objective ${report.objective}`,
  )
  for (const fold of report.folds) {
    out.push(
      '',
      `fold ${fold.index + 1}: in-sample ${day(fold.inSample.from)} → ${day(fold.inSample.to)}, out-of-sample → ${day(fold.outOfSample.to)}`,
    )
    const rows = fold.ranking
      .slice(0, shownRanking)
      .map((row, rank) => [
        String(rank + 1),
        `#${row.candidate}`,
        ...valuesOf(row.candidate),
        number(row.score),
        percent(row.return),
        row.trades === null ? '-' : String(row.trades),
        note(row),
      ])
    out.push(table(['rank', 'cand', ...short, report.objective, 'return', 'trades', 'note'], rows))
    if (fold.ranking.length > shownRanking) out.push(`… ${fold.ranking.length - shownRanking} more (--json has them all)`)
  }
  out.push('', 'walk-forward (each fold: the in-sample winner, scored on the out-of-sample window that follows)')
  out.push(
    table(
      ['fold', 'winner', ...short, `IS ${report.objective}`, `OOS ${report.objective}`, 'IS return', 'OOS return', 'note'],
      report.folds.map((fold) => [
        String(fold.index + 1),
        fold.winner === null ? '-' : `#${fold.winner}`,
        ...(fold.winner === null ? short.map(() => '-') : valuesOf(fold.winner)),
        number(fold.inSampleScore?.score),
        number(fold.outOfSampleScore?.score),
        percent(fold.inSampleScore?.return),
        percent(fold.outOfSampleScore?.return),
        note(fold.outOfSampleScore),
      ]),
    ),
  )
  out.push(`walk-forward efficiency ${number(report.walkForwardEfficiency, 2)} (mean OOS return per day over mean IS return per day)`)
  const recommendation = report.recommendation
  out.push('')
  if (!recommendation) {
    out.push(`no recommendation: ${noRecommendationReason(report)}`)
    return out.join('\n')
  }
  out.push(
    `recommended: #${recommendation.candidate} (chosen in fold ${recommendation.chosenInFold + 1}; mean OOS ${report.objective} ${number(recommendation.meanScore)} over ${recommendation.outOfSample.length} out-of-sample window${recommendation.outOfSample.length === 1 ? '' : 's'})`,
  )
  for (const [path, value] of Object.entries(recommendation.values)) out.push(`  ${path}: ${String(value)}`)
  if (recommendation.neighbours.length > 0) {
    out.push('robustness: one step either way, mean OOS score on the same windows')
    out.push(
      table(
        ['parameter', 'value', `OOS ${report.objective}`, 'warning'],
        recommendation.neighbours.map((neighbour) => [
          neighbour.path,
          String(neighbour.value),
          number(neighbour.meanScore),
          neighbour.warning ? 'sharp drop' : '',
        ]),
      ),
    )
  }
  const deflated = recommendation.deflatedSharpe
  out.push(
    deflated
      ? `deflated Sharpe ratio ${number(deflated.dsr)} (last OOS window: Sharpe ${number(deflated.sharpe, 4)} per period against ${number(deflated.expectedMaximum, 4)} expected from the best of ${deflated.trials} trials by luck)`
      : 'deflated Sharpe ratio: - (too few returns in the last out-of-sample window)',
  )
  for (const warning of recommendation.warnings) out.push(`warning: ${warning}`)
  return out.join('\n')
}
