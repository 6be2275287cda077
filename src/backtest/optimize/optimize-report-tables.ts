import { escapeHtml, formatAmount, formatTime, notAvailable } from '../report-format.js'
import { figureCell } from '../report-tables.js'
import type { OptimizeReport, TrialFigures } from './optimize.js'
import {
  type FigureKey,
  figureHeader,
  figureKeysOf,
  formatValue,
  formatWindow,
  noWinnerReason,
  parameterLabels,
  trialFigure,
  trialNote,
} from './optimize-report-figures.js'
import type { ParameterValue } from './space.js'
import type { Window } from './walk-forward.js'

// The optimisation report's tables: each fold's winner in sample against out of sample, and each fold's in-sample
// ranking (its best rows, the rest counted). Every value from the config (paths, choices, error messages) is escaped;
// a missing figure shows as a dash whose tooltip says why.

/** Rows of each fold's in-sample ranking the report shows. */
export const shownRankingRows = 20

function head(label: string, className = 'num', title?: string): string {
  return `<th scope="col" class="${className}"${title === undefined ? '' : ` title="${escapeHtml(title)}"`}>${escapeHtml(label)}</th>`
}

/** The header cells of the parameters: short names, the whole path as the tooltip. */
export function parameterHeads(report: OptimizeReport): string {
  const labels = parameterLabels(report.parameters)
  return labels.map((label, at) => head(label, 'value', report.parameters[at])).join('')
}

export function valueCells(report: OptimizeReport, candidate: number | null, why = ''): string {
  const values = candidate === null ? undefined : report.candidates[candidate]?.values
  return report.parameters
    .map((_, at) =>
      values
        ? `<td class="value">${escapeHtml(formatValue(values[at] as ParameterValue))}</td>`
        : `<td class="value">${notAvailable(why)}</td>`,
    )
    .join('')
}

/**
 * A trial's figures as cells, each with the class `${prefix}-${key}` (`is-score`, `oos-trades`); `toned`: a score
 * coloured by its sign.
 */
export function figureCells(report: OptimizeReport, figures: TrialFigures | null, prefix: string, why: string, toned = true): string {
  return figureKeysOf(report.objective)
    .map((key: FigureKey) => {
      const figure = figures ? trialFigure(figures, key, report.objective) : { missing: why }
      return figureCell('text' in figure && !toned ? { text: figure.text } : figure, `num ${prefix}-${key}`)
    })
    .join('')
}

/** A window's cell: in a narrow column it breaks at the arrow only. */
function windowCell(window: Window): string {
  return `<td class="time"><span class="stamp">${escapeHtml(formatTime(window.from))} →</span> <span class="stamp">${escapeHtml(
    formatTime(window.to),
  )}</span></td>`
}

function noteCell(figures: TrialFigures | null): string {
  const note = figures ? trialNote(figures) : null
  if (!note) return '<td class="note"></td>'
  return `<td class="note"><span title="${escapeHtml(note.title)}">${escapeHtml(note.text)}</span></td>`
}

/** A candidate's values in one cell: `lowerPrice 2000 · levels 7`, the whole path as each name's tooltip. */
function valuesList(report: OptimizeReport, candidate: number): string {
  const labels = parameterLabels(report.parameters)
  const values = report.candidates[candidate]?.values ?? []
  return labels
    .map(
      (label, at) =>
        `<span class="parameter"><span title="${escapeHtml(report.parameters[at] as string)}">${escapeHtml(label)}</span> <b>${escapeHtml(
          formatValue(values[at] as ParameterValue),
        )}</b></span>`,
    )
    .join(' · ')
}

/**
 * Each fold in two rows: its in-sample winner (with its values), then the winner's figures on the in-sample window
 * and, under them, on the out-of-sample window that follows; cells carry `is-…` and `oos-…` classes.
 */
export function foldTable(report: OptimizeReport): string {
  const keys = figureKeysOf(report.objective)
  // a note column only when some window has a note
  const noted = report.folds.some((fold) => [fold.inSampleScore, fold.outOfSampleScore].some((figures) => figures?.excluded !== undefined))
  const note = (figures: TrialFigures | null) => (noted ? noteCell(figures) : '')
  const folds = report.folds.map((fold) => {
    const why = fold.winner === null ? noWinnerReason(fold) : ''
    const oosWhy = fold.winner === null ? why : 'The winner was not run out of sample.'
    const winner =
      fold.winner === null
        ? `<td rowspan="2" class="winner">${notAvailable(why)} no winner</td>`
        : `<td rowspan="2" class="winner"><b>#${fold.winner}</b><div class="values">${valuesList(report, fold.winner)}</div></td>`
    return `<tbody data-fold="${fold.index}">
<tr class="in-sample"><th scope="row" rowspan="2">${fold.index + 1}</th>${winner}<th scope="row" class="sample">In sample</th>${windowCell(fold.inSample)}${figureCells(report, fold.inSampleScore, 'is', why)}${note(fold.inSampleScore)}</tr>
<tr class="out-of-sample"><th scope="row" class="sample">Out of sample</th>${windowCell(fold.outOfSample)}${figureCells(
      report,
      fold.outOfSampleScore,
      'oos',
      oosWhy,
    )}${note(fold.outOfSampleScore)}</tr>
</tbody>`
  })
  return `<div class="scroll"><table class="figures folds">
<thead><tr>${head('Fold', '')}${head('Winner', '')}${head('', '')}${head('Window, UTC', '')}${keys
    .map((key) => head(figureHeader(key, report.objective)))
    .join('')}${noted ? head('Note', '') : ''}</tr></thead>
${folds.join('\n')}
</table></div>`
}

/** One fold's in-sample ranking: the first `shownRankingRows`, the rest counted (how many failed or broke a limit). */
function rankingTable(report: OptimizeReport, fold: OptimizeReport['folds'][number], halving: boolean): string {
  const keys = figureKeysOf(report.objective)
  const shown = fold.ranking.slice(0, shownRankingRows)
  const noted = shown.some((row) => row.excluded !== undefined)
  const rows = shown.map(
    (row, rank) =>
      `<tr class="${row.candidate === fold.winner ? 'best' : ''}${row.excluded !== undefined ? ' excluded' : ''}"><td class="num">${rank + 1}</td><td class="num">#${row.candidate}</td>${valueCells(
        report,
        row.candidate,
      )}${figureCells(report, row, 'is', '', false)}${halving ? `<td class="num">${row.round + 1}</td>` : ''}${noted ? noteCell(row) : ''}</tr>`,
  )
  const rest = fold.ranking.slice(shownRankingRows)
  const failed = rest.filter((row) => row.excluded !== undefined && row.trades === null).length
  const broke = rest.filter((row) => row.excluded !== undefined && row.trades !== null).length
  const restNote =
    rest.length === 0
      ? ''
      : `<p class="note rest">${escapeHtml(
          `… and ${formatAmount(rest.length, 0)} more candidate${rest.length === 1 ? '' : 's'}, ranked lower${
            failed + broke > 0
              ? ` (${[failed > 0 ? `${formatAmount(failed, 0)} failed` : '', broke > 0 ? `${formatAmount(broke, 0)} broke a limit` : ''].filter(Boolean).join(', ')})`
              : ''
          }.`,
        )}</p>`
  return `<h3>${escapeHtml(`Fold ${fold.index + 1}: in sample ${formatWindow(fold.inSample)} UTC`)}</h3>
<div class="scroll"><table class="figures ranking" data-fold="${fold.index}">
<thead><tr>${head('Rank')}${head('Candidate')}${parameterHeads(report)}${keys.map((key) => head(figureHeader(key, report.objective))).join('')}${
    halving ? head('Round', 'num', 'successive halving: the round a candidate reached (its figures are that round’s)') : ''
  }${noted ? head('Note', '') : ''}</tr></thead>
<tbody>
${rows.join('\n')}
</tbody>
</table></div>${restNote}`
}

/** Every fold's in-sample ranking, best first. */
export function rankingSection(report: OptimizeReport, halving: boolean): string {
  return `<section class="rankings">
<h2>In-sample ranking per fold</h2>
<p class="note">${escapeHtml(
    `Every candidate on each fold's in-sample window, ranked by ${report.objective} (higher is better; a candidate that failed or broke a limit ranks after every other; ties: the lower number). The highlighted row is the fold's winner. At most ${shownRankingRows} rows per fold; --json has them all.`,
  )}</p>
${report.folds.map((fold) => rankingTable(report, fold, halving)).join('\n')}
</section>`
}
