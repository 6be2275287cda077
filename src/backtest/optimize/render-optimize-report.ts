import { basename } from 'node:path'
import type { OptimizeConfig } from '../../config/optimize-schema.js'
import type { ChartModel } from '../report-charts.js'
import { escapeHtml, formatAmount, formatDuration, formatPercent, formatTime, notAvailable } from '../report-format.js'
import { type Card, cardsSection, chartSection, renderReportPage } from '../report-page.js'
import type { OptimizeReport } from './optimize.js'
import { buildFoldChart, buildObjectiveCharts, foldColours } from './optimize-report-charts.js'
import { formatScore, formatValue, noRecommendationReason, parameterLabels } from './optimize-report-figures.js'
import { recommendationSection } from './optimize-report-recommendation.js'
import { optimizeReportStyles } from './optimize-report-styles.js'
import { foldTable, rankingSection } from './optimize-report-tables.js'
import type { Window } from './walk-forward.js'

export type RenderOptimizeReportParameters = {
  report: OptimizeReport
  /** The optimize section as it ran: the space (log scales, choices), the limits, the walk-forward and halving. */
  optimize: OptimizeConfig
  /** The config file and the quote set, as given (shown, and in the command that reproduces the run). */
  config: string
  quotes: string
  /** The period the folds split. */
  period: Window
}

/**
 * The optimisation as one self-contained HTML page (inline CSS and SVG, no network), built from the backtest report's
 * parts: what ran, the recommendation as the headline, the in-sample objective against each parameter, each fold's
 * winner in sample against out of sample (charts and a table) with the walk-forward efficiency, the recommendation
 * with its evidence, neighbours, Deflated Sharpe Ratio and warnings (or why there is none), and each fold's ranking.
 * A figure a trial could not give is a dash whose tooltip says why. Every text from the config (paths, choices) and
 * every error message is escaped. Same report, same bytes.
 */
export function renderOptimizeReport(parameters: RenderOptimizeReportParameters): string {
  const { report, optimize } = parameters
  const sections = [
    header(parameters),
    headline(report),
    keyFigures(report),
    objectiveSection(report, optimize),
    foldSection(report),
    recommendationSection(report),
    rankingSection(report, optimize.halving !== undefined),
    footer(parameters),
  ]
  return renderReportPage({
    title: `Optimisation of ${basename(parameters.config)}`,
    sections,
    data: { readouts: [] },
    styles: optimizeReportStyles,
  })
}

function header({ report, optimize, config, quotes, period }: RenderOptimizeReportParameters): string {
  const { walkForward, halving, limits } = optimize
  const inSample =
    typeof walkForward.inSample === 'number' ? `${formatPercent(walkForward.inSample, 0)} in sample` : `${walkForward.inSample} in sample`
  const limitWords = [
    limits.maxDrawdown === undefined ? '' : `max drawdown ${formatPercent(limits.maxDrawdown, 1)}`,
    limits.minTrades === undefined ? '' : `at least ${formatAmount(limits.minTrades, 0)} trades`,
  ].filter(Boolean)
  const run = [
    `Sampler ${report.sampler}`,
    `objective ${report.objective}`,
    `${formatAmount(report.candidates.length, 0)} candidates${report.skipped > 0 ? ` (${formatAmount(report.skipped, 0)} skipped by the constraints)` : ''}`,
    `${formatAmount(report.folds.length, 0)} folds (${walkForward.mode}, ${inSample})`,
    `${formatAmount(report.trials, 0)} trials`,
    halving ? `successive halving: keep ${formatPercent(halving.keep, 0)}, ${halving.rounds} round${halving.rounds === 1 ? '' : 's'}` : '',
    limitWords.length > 0 ? `limits: ${limitWords.join(', ')}` : '',
  ].filter(Boolean)
  return `<header>
<h1>Optimisation of ${escapeHtml(basename(config))}</h1>
<p class="meta">Quotes ${escapeHtml(basename(quotes))} · ${escapeHtml(formatTime(period.from))} to ${escapeHtml(formatTime(period.to))} UTC (${escapeHtml(
    formatDuration(period.to - period.from),
  )}) · seed ${escapeHtml(String(report.seed))}</p>
<p class="meta">${escapeHtml(run.join(' · '))}</p>
</header>`
}

/** The recommendation in one line, or that there is none and why. */
function headline(report: OptimizeReport): string {
  const recommendation = report.recommendation
  if (!recommendation) {
    return `<section class="headline neg" aria-label="Recommendation">
<p class="verdict">No recommendation</p>
<p class="detail">${escapeHtml(noRecommendationReason(report))}</p>
</section>`
  }
  const labels = parameterLabels(report.parameters)
  const values = report.parameters.map((path, at) => `${labels[at]} ${formatValue(recommendation.values[path] ?? '')}`)
  const mean = recommendation.meanScore
  const tone = mean === null || mean === 0 ? '' : mean > 0 ? 'pos' : 'neg'
  const windows = recommendation.outOfSample.length
  const warnings = recommendation.warnings.length
  return `<section class="headline ${tone}" aria-label="Recommendation">
<p class="verdict">Recommended: candidate #${recommendation.candidate}</p>
<p class="detail">${escapeHtml(values.join(' · '))}</p>
<p class="detail">${escapeHtml(
    `Mean out-of-sample ${report.objective} ${mean === null ? '–' : formatScore(mean, report.objective)} over ${windows} window${windows === 1 ? '' : 's'}${
      warnings > 0 ? ` · ${warnings} warning${warnings === 1 ? '' : 's'}: see the recommendation` : ''
    }`,
  )}</p>
</section>`
}

function efficiencyWhy(report: OptimizeReport): string {
  const both = report.folds.some((fold) => fold.inSampleScore?.return != null && fold.outOfSampleScore?.return != null)
  return both
    ? 'The mean in-sample return per day is 0, so there is nothing to divide by.'
    : 'No fold has both an in-sample and an out-of-sample return.'
}

function keyFigures(report: OptimizeReport): string {
  const recommendation = report.recommendation
  const deflated = recommendation?.deflatedSharpe
  const cards: Card[] = [
    {
      label: 'Candidates',
      value: formatAmount(report.candidates.length, 0),
      note: report.skipped > 0 ? `${formatAmount(report.skipped, 0)} skipped by the constraints` : 'none skipped',
    },
    {
      label: 'Walk-forward efficiency',
      value: report.walkForwardEfficiency === null ? null : formatAmount(report.walkForwardEfficiency, 2),
      why: efficiencyWhy(report),
      note: 'OOS return per day over IS',
    },
    {
      label: `Mean OOS ${report.objective}`,
      value: recommendation?.meanScore == null ? null : formatScore(recommendation.meanScore, report.objective),
      why: recommendation ? 'A window has no score.' : noRecommendationReason(report),
      note: 'of the recommendation',
    },
    {
      label: 'Deflated Sharpe ratio',
      value: deflated?.dsr == null ? null : formatAmount(deflated.dsr, 3),
      why: recommendation ? 'Too few returns in the last out-of-sample window to tell it.' : noRecommendationReason(report),
      ...(deflated?.dsr == null
        ? {}
        : { tone: deflated.dsr < 0.95 ? 'neg' : 'pos', note: deflated.dsr < 0.95 ? 'below 0.95' : 'at least 0.95' }),
    },
  ]
  return cardsSection(cards)
}

function objectiveLegend(report: OptimizeReport, chart: ChartModel): [string, string][] {
  const folds = report.folds
    .slice(0, foldColours)
    .map((fold): [string, string] => [`swatch-point swatch-fold-${fold.index}`, `Fold ${fold.index + 1}`])
  const classes = chart.dots.map((dot) => dot.classes)
  return [
    ...folds,
    ...(classes.some((names) => names.includes('winner')) ? [['swatch-winner', 'Fold winner'] as [string, string]] : []),
    ...(classes.some((names) => names.includes('hollow')) ? [['swatch-hollow', 'Broke a limit'] as [string, string]] : []),
    ...(classes.some((names) => names.includes('missing')) ? [['swatch-missing', 'No score (hover for why)'] as [string, string]] : []),
    ...(report.recommendation ? [['swatch-guide', 'Recommended value'] as [string, string]] : []),
  ]
}

function objectiveSection(report: OptimizeReport, optimize: OptimizeConfig): string {
  const charts = buildObjectiveCharts(report, optimize.space)
  const halving = optimize.halving
    ? ' With successive halving, each candidate’s last round (a shorter window for those dropped early).'
    : ''
  const repeat = report.folds.length > foldColours ? ` Fold colours repeat every ${foldColours} folds.` : ''
  return `<section class="objective-charts">
<h2>${escapeHtml(`In-sample ${report.objective} against each parameter`)}</h2>
<p class="note">${escapeHtml(
    `One point per candidate and fold: its in-sample ${report.objective} (higher is better) at its value of the parameter. Points of one value are spread a little by fold.${halving}${repeat}`,
  )}</p>
${charts
  .map((chart, at) => {
    const path = report.parameters[at] as string
    const space = optimize.space[path]
    const scale = space && 'range' in space ? (space.range.scale === 'log' ? 'log scale' : 'linear scale') : 'one column per choice'
    return chartSection({
      chart,
      heading: path,
      description: `${capitalised(scale)}. Hover a point for its candidate and figures.`,
      legend: objectiveLegend(report, chart),
      counts: [],
      level: 'h3',
    })
  })
  .join('\n')}
</section>`
}

function foldSection(report: OptimizeReport): string {
  const efficiency = report.walkForwardEfficiency
  const pairLegend: [string, string][] = [
    ['swatch-point swatch-in-sample', 'In sample (left)'],
    ['swatch-point swatch-out-of-sample', 'Out of sample (right)'],
    ['swatch-pair', 'The same winner'],
  ]
  return `<section class="folds">
<h2>Fold by fold: in sample against out of sample</h2>
<p class="note">Each fold’s in-sample winner, then scored on the out-of-sample window that follows, which it has never seen. A large in-sample figure with a poor out-of-sample one is overfitting.</p>
${chartSection({
  chart: buildFoldChart(report, 'score'),
  heading: `${capitalised(report.objective)} of each fold’s winner`,
  description: `In sample against out of sample, per fold. Hover a point for its figures.`,
  legend: pairLegend,
  counts: [],
  level: 'h3',
})}
${chartSection({
  chart: buildFoldChart(report, 'return'),
  heading: 'Return per day of each fold’s winner',
  description: 'The return over each window divided by its length in days: in-sample windows are longer, so only returns per day compare.',
  legend: pairLegend,
  counts: [],
  level: 'h3',
})}
<h3>The folds</h3>
${foldTable(report)}
<p class="efficiency">Walk-forward efficiency <b>${
    efficiency === null ? notAvailable(efficiencyWhy(report)) : escapeHtml(formatAmount(efficiency, 2))
  }</b>: the mean out-of-sample return per day over the mean in-sample return per day. About 1: the winners kept their in-sample pace; near 0 or negative: the in-sample edge did not carry over.</p>
</section>`
}

function capitalised(text: string): string {
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}`
}

function footer({ report, config, quotes, period }: RenderOptimizeReportParameters): string {
  const iso = (time: number) => new Date(time).toISOString()
  const command = `deltaflow optimize ${config} --quotes ${quotes} --seed ${report.seed} --from ${iso(period.from)} --to ${iso(period.to)}`
  return `<footer>
<h2>Reproduce</h2>
<dl>
<dt>Config</dt><dd>${escapeHtml(config)}</dd>
<dt>Quotes</dt><dd>${escapeHtml(quotes)}</dd>
<dt>Period</dt><dd>${escapeHtml(`${iso(period.from)} to ${iso(period.to)} (the end excluded)`)}</dd>
<dt>Seed</dt><dd>${escapeHtml(String(report.seed))}</dd>
<dt>Command</dt><dd class="id">${escapeHtml(command)}</dd>
</dl>
<p class="note">The same config, quotes, period and seed give the same result with any number of workers (--json prints the same bytes). This page loads nothing from the network.</p>
</footer>`
}
