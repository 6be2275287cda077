import { escapeHtml, formatAmount } from '../report-format.js'
import { warningsSection } from '../report-page.js'
import { type Figure, figureCell, figureRow } from '../report-tables.js'
import { type OptimizeReport, type Recommendation, sharpDropShare } from './optimize.js'
import {
  figureHeader,
  figureKeysOf,
  formatScore,
  formatScoreChange,
  formatValue,
  formatWindow,
  noRecommendationReason,
} from './optimize-report-figures.js'
import { figureCells } from './optimize-report-tables.js'

// The recommendation of the optimisation report: its values, its out-of-sample evidence fold by fold, its
// neighbours one step either way, the Deflated Sharpe Ratio and the warnings; or, when there is none, why.

const noNeighbourScore = 'No score: on at least one of the windows this neighbour failed, broke a limit or had no score.'

function valuesTable(recommendation: Recommendation): string {
  const rows = Object.entries(recommendation.values).map(
    ([path, value]) =>
      `<tr><th scope="row" class="path">${escapeHtml(path)}</th><td class="recommended-value">${escapeHtml(formatValue(value))}</td></tr>`,
  )
  return `<table class="figures recommended-values">
<thead><tr><th scope="col">Parameter</th><th scope="col">Recommended value</th></tr></thead>
<tbody>
${rows.join('\n')}
</tbody>
</table>`
}

function evidenceTable(report: OptimizeReport, recommendation: Recommendation): string {
  const keys = figureKeysOf(report.objective)
  const rows = recommendation.outOfSample.map((entry) => {
    const fold = report.folds[entry.fold]
    return `<tr><th scope="row">${entry.fold + 1}</th><td class="time">${fold ? escapeHtml(formatWindow(fold.outOfSample)) : ''}</td>${figureCells(
      report,
      entry.figures,
      'evidence',
      '',
    )}</tr>`
  })
  const mean: Figure =
    recommendation.meanScore === null
      ? { missing: 'No mean: a window has no score.' }
      : { text: formatScore(recommendation.meanScore, report.objective) }
  return `<div class="scroll"><table class="figures evidence">
<thead><tr><th scope="col">Fold</th><th scope="col">Out of sample, UTC</th>${keys
    .map((key) => `<th scope="col" class="num">${escapeHtml(figureHeader(key, report.objective))}</th>`)
    .join('')}</tr></thead>
<tbody>
${rows.join('\n')}
</tbody>
<tfoot><tr><th scope="row" colspan="2">Mean score</th>${figureCell(mean, 'num mean-score')}${keys
    .slice(1)
    .map(() => '<td></td>')
    .join('')}</tr></tfoot>
</table></div>`
}

function neighboursTable(report: OptimizeReport, recommendation: Recommendation): string {
  if (recommendation.neighbours.length === 0)
    return '<p class="note">No neighbours: every parameter sits alone in its space (one value, one choice).</p>'
  const reference = recommendation.meanScore
  const rows = recommendation.neighbours.map((neighbour) => {
    const score: Figure =
      neighbour.meanScore === null ? { missing: noNeighbourScore } : { text: formatScore(neighbour.meanScore, report.objective) }
    const change: Figure =
      neighbour.meanScore === null || reference === null
        ? { missing: neighbour.meanScore === null ? noNeighbourScore : 'The recommendation has no mean score.' }
        : {
            text: formatScoreChange(neighbour.meanScore - reference, report.objective),
            tone: neighbour.meanScore < reference ? 'neg' : neighbour.meanScore > reference ? 'pos' : '',
          }
    const warning = neighbour.warning
      ? `<td class="warning"><span title="${escapeHtml(neighbour.warning)}">sharp drop</span></td>`
      : '<td class="warning"></td>'
    return `<tr${neighbour.warning ? ' class="sharp"' : ''}><th scope="row" class="path">${escapeHtml(neighbour.path)}</th><td class="value">${escapeHtml(
      formatValue(neighbour.value),
    )}</td>${figureCell(score, 'num neighbour-score')}${figureCell(change)}${warning}</tr>`
  })
  return `<p class="note">${escapeHtml(
    `Each parameter moved one step either way (the others kept), scored on the same out-of-sample windows. A fall of more than ${formatAmount(sharpDropShare * 100, 0)} % of the recommendation's mean score is flagged: a sharp peak is likely luck.`,
  )}</p>
<div class="scroll"><table class="figures neighbours">
<thead><tr><th scope="col">Parameter</th><th scope="col">Value</th><th scope="col" class="num">${escapeHtml(
    `Mean score (${report.objective})`,
  )}</th><th scope="col" class="num">Against the recommendation</th><th scope="col">Warning</th></tr></thead>
<tbody>
${rows.join('\n')}
</tbody>
</table></div>`
}

function deflatedSharpeTable(recommendation: Recommendation): string {
  const deflated = recommendation.deflatedSharpe
  const rows = deflated
    ? [
        figureRow(
          'Deflated Sharpe ratio',
          deflated.dsr === null
            ? { missing: 'It cannot be told: too few returns, or their skewness and kurtosis leave no spread.' }
            : { text: formatAmount(deflated.dsr, 3), tone: deflated.dsr < 0.95 ? 'neg' : 'pos' },
          'the probability that the true Sharpe ratio is above what luck explains; below 0.95 is flagged',
        ),
        figureRow(
          'Sharpe ratio, last out-of-sample window',
          deflated.sharpe === null ? { missing: 'The returns did not vary.' } : { text: formatAmount(deflated.sharpe, 4) },
          'per period, not annualised',
        ),
        figureRow(
          'Expected best by luck',
          { text: formatAmount(deflated.expectedMaximum, 4) },
          `the Sharpe ratio the best of ${formatAmount(deflated.trials, 0)} unskilled trials reaches by chance`,
        ),
        figureRow('Trials', { text: formatAmount(deflated.trials, 0) }, 'candidates tried'),
      ]
    : [
        figureRow(
          'Deflated Sharpe ratio',
          { missing: 'Too few returns in the last out-of-sample window (fewer than 4), or none that varied.' },
          'needs the returns of the last out-of-sample window',
        ),
      ]
  return `<table class="figures summary deflated-sharpe">
<tbody>
${rows.join('\n')}
</tbody>
</table>`
}

/** The recommendation, or why there is none. */
export function recommendationSection(report: OptimizeReport): string {
  const recommendation = report.recommendation
  if (!recommendation) {
    return `<section class="recommendation none">
<h2>Recommendation</h2>
<p class="no-recommendation"><b>No recommendation.</b> ${escapeHtml(noRecommendationReason(report))}</p>
</section>`
  }
  const windows = recommendation.outOfSample.length
  return `<section class="recommendation">
<h2>Recommendation</h2>
<p class="note">${escapeHtml(
    `Candidate #${recommendation.candidate}, first chosen in fold ${recommendation.chosenInFold + 1}: of every fold winner, the best mean ${report.objective} out of sample, over the ${windows} out-of-sample window${windows === 1 ? '' : 's'} from that fold on (none of them seen by the in-sample window that chose it).`,
  )}</p>
${valuesTable(recommendation)}
<h3>Out-of-sample evidence</h3>
${evidenceTable(report, recommendation)}
<h3>Robustness: one step either way</h3>
${neighboursTable(report, recommendation)}
<h3>Deflated Sharpe ratio</h3>
${deflatedSharpeTable(recommendation)}
${warningsSection(recommendation.warnings, 'Warnings')}
</section>`
}
