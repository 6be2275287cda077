import { basename } from 'node:path'
import { z } from 'zod'
import {
  type BacktestFill,
  type BacktestResult,
  BacktestResultError,
  type BacktestSummary,
  backtestSummarySchema,
  parseBacktestResult,
} from './backtest-result.js'
import {
  buildDrawdownChart,
  buildEquityChart,
  buildPriceChart,
  type ChartModel,
  fillGroupWidth,
  maxFillMarkers,
  plotWidth,
} from './report-charts.js'
import {
  escapeHtml,
  formatAmount,
  formatBps,
  formatDuration,
  formatPercent,
  formatRatio,
  formatReturn,
  formatSigned,
  formatSignedPercent,
  formatTime,
  signClass,
  valueDecimals,
} from './report-format.js'
import { metricsTable } from './report-metrics.js'
import { type Card, cardsSection, chartSection, renderReportPage, warningsSection } from './report-page.js'
import { buildSlippageChart } from './report-slippage.js'
import { dailyTable, executionTable, strategiesTable, worstFillsTable } from './report-tables.js'
import { formatSweepTable, type SweepRow } from './sweep-table.js'

export type RenderBacktestReportOptions = {
  /** Other combinations of a parameter sweep this run belongs to, shown as a ranked table. */
  sweep?: readonly SweepRow[] | undefined
  /** Names the result in a BacktestResultError (a file name); default `backtest result`. */
  source?: string | undefined
}

const sweepRowsSchema = z.array(
  z.object({ parameters: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])), summary: backtestSummarySchema }),
)

/**
 * The backtest report as one self-contained HTML file (inline CSS and script, no network): the fill model, the result
 * against buy-and-hold as the headline (with the starting balances kept and the market beside it), warnings, key
 * figures, the equity curve against both benchmarks, the drawdown curve, the metrics, the price with every fill marked,
 * the slippage histogram coloured by sign, one row per day, one row per strategy with its round trips, the execution
 * summary, the worst fills, a sweep's ranking, and what reproduces the run. The charts are inline SVG drawn here, so
 * the page shows them with scripts off; the script only adds a hover readout. Large series are thinned to the chart's
 * pixel columns, so a million points make a page of a few hundred kB. Every text from the result (strategy names, file
 * names, order ids, warnings) is escaped. Same result, same bytes.
 *
 * Throws BacktestResultError, naming the first wrong paths, when `result` (or a sweep row) does not match the schema.
 */
export function renderBacktestReport(input: BacktestResult, options: RenderBacktestReportOptions = {}): string {
  const source = options.source ?? 'backtest result'
  const result = parseBacktestResult(input, source)
  const sweepRows = sweepRowsSchema.safeParse(options.sweep ?? [])
  if (!sweepRows.success) {
    throw new BacktestResultError(
      `the sweep of ${source}`,
      sweepRows.error.issues.map((issue) => ({ ...issue, path: ['sweep', ...issue.path] })),
    )
  }
  const sweep = sweepRows.data
  const decimals = valueDecimals(result.summary.startValue)
  const { base, quote } = result.pair
  const equity = buildEquityChart(result)
  const drawdown = buildDrawdownChart(result)
  const price = buildPriceChart(result)
  const slippage = buildSlippageChart(result)
  const windowKeys = (swatch: string): [string, string][] =>
    drawdown.chart.bands.map((band) =>
      band.kind === 'drawdown' ? [swatch, 'Maximum drawdown, peak to trough'] : ['swatch-recovery', 'Until recovered'],
    )
  const title = `Backtest ${basename(result.config)}: ${base}/${quote}`
  const body = [
    header(result),
    headline(result, decimals),
    warningsSection(reportWarnings(result)),
    keyFigures(result, decimals),
    chartSection({
      chart: equity.chart,
      heading: 'Equity against buy-and-hold',
      description: `Value of the strategy's holdings in ${quote}, against buying ${base} with the whole start value at the first price and against keeping the starting balances.`,
      legend: [
        ['swatch-equity', 'Strategy'],
        ['swatch-buy-and-hold', 'Buy-and-hold (dashed)'],
        ['swatch-hold-start', 'Starting balances (dotted)'],
        ...windowKeys('swatch-band').slice(0, 1),
      ],
      counts: equity.counts,
    }),
    chartSection({
      chart: drawdown.chart,
      heading: 'Drawdown',
      description: "The strategy's equity below its highest value so far, as a share of that peak.",
      legend: [['swatch-drawdown', 'Drawdown'], ...windowKeys('swatch-window')],
      counts: drawdown.counts,
    }),
    metricsTable(result, decimals),
    chartSection({
      chart: price.chart,
      heading: `Price and fills`,
      description: `${quote} per ${base}. Hover a triangle for the fill.${
        result.fills.length > maxFillMarkers
          ? ` ${formatAmount(result.fills.length, 0)} fills, grouped per ${fillGroupWidth} pixel columns and side: ${formatAmount(price.chart.markers.length, 0)} triangles.`
          : ''
      }`,
      legend: [
        ['swatch-price', 'Price'],
        ['swatch-buy', `Buy (${formatAmount(countSide(result.fills, 'BUY'), 0)})`],
        ['swatch-sell', `Sell (${formatAmount(countSide(result.fills, 'SELL'), 0)})`],
      ],
      counts: price.counts,
    }),
    chartSection({
      chart: slippage.chart,
      heading: 'Slippage per fill',
      description:
        'Basis points between the price a fill got and the price its order was planned at; positive is worse for the trader. The bin around zero holds the fills that went as planned.',
      legend: [
        ['swatch-better', 'Better than planned'],
        ['swatch-neutral', 'As planned (around zero)'],
        ['swatch-worse', 'Worse than planned'],
      ],
      counts: [],
    }),
    dailyTable(result, decimals),
    strategiesTable(result, decimals),
    executionTable(result, decimals),
    worstFillsTable(result, decimals),
    sweep.length > 0 ? formatSweepTable(sweep, { quote }).html : '',
    footer(result),
  ]
  return renderReportPage({
    title,
    sections: body,
    data: {
      readouts: [equity.chart, drawdown.chart, price.chart].filter((chart) => chart.readout && chart.empty === null).map(readoutData),
    },
  })
}

/**
 * What the hover readout needs of a chart: its axes' ranges and, per line, the last value in each pixel column (null
 * where the line has no point), 7 significant digits. A few kB per line, whatever the length of the series.
 */
function readoutData(chart: ChartModel) {
  const span = chart.x.max - chart.x.min
  return {
    id: chart.id,
    unit: chart.unit,
    x: { min: chart.x.min, max: chart.x.max },
    y: { min: chart.y.min, max: chart.y.max },
    lines: chart.lines
      .filter((line) => line.points.length > 0)
      .map(({ name, label, points }) => {
        const values = new Array<number | null>(plotWidth).fill(null)
        for (let index = 0; index < points.length; index += 2) {
          const column = span > 0 ? Math.floor((((points[index] as number) - chart.x.min) / span) * plotWidth) : 0
          values[Math.min(plotWidth - 1, Math.max(0, column))] = Number((points[index + 1] as number).toPrecision(7))
        }
        return { name, label, values }
      }),
  }
}

function countSide(fills: readonly BacktestFill[], side: BacktestFill['side']): number {
  let count = 0
  for (const fill of fills) if (fill.side === side) count++
  return count
}

/** One line on how the run filled orders, shown under the title. */
export const fillModelExplanations: Record<BacktestSummary['fillModel'], string> = {
  realistic:
    "Delta auctions settle around the quote by a seeded draw (better or worse, never past the order's limit), LIMIT orders fill only once the price passes them by a margin, Market swaps pay their size's impact and the gas of their time.",
  ideal:
    'Fills at fixed figures: Delta orders at the recorded quote, LIMIT orders as soon as the price touches them, Market swaps with a fixed slippage. An optimistic bound: run the realistic model to see how much of the result is the model.',
}

function header(result: BacktestResult): string {
  const model = result.summary.fillModel
  return `<header>
<h1>Backtest of ${escapeHtml(basename(result.config))}</h1>
<p class="meta">${escapeHtml(result.pair.base)}/${escapeHtml(result.pair.quote)} · ${escapeHtml(formatTime(result.from))} to ${escapeHtml(
    formatTime(result.to),
  )} UTC (${escapeHtml(formatDuration(result.to - result.from))}) · ${escapeHtml(formatAmount(result.summary.trades, 0))} trades · seed ${escapeHtml(
    String(result.seed),
  )}</p>
<p class="meta fill-model">Fill model <b>${model}</b> ${escapeHtml(fillModelExplanations[model])}</p>
</header>`
}

/** The strategy against buy-and-hold in words, with the other benchmark and the market beside it. */
function headline(result: BacktestResult, decimals: number): string {
  const { summary, pair } = result
  const { buyAndHold, holdStart } = summary.benchmarks
  const quote = escapeHtml(pair.quote)
  const money = (amount: number) => `${escapeHtml(formatAmount(Math.abs(amount), decimals))} ${quote}`
  const kind = signClass(buyAndHold.excess, decimals)
  const relative =
    buyAndHold.endValue > 0
      ? ` <span title="the strategy's end value against buy-and-hold's">(${escapeHtml(formatSignedPercent(buyAndHold.excess / buyAndHold.endValue, 1))})</span>`
      : ''
  const verdict =
    kind === 'pos'
      ? `<span class="arrow" aria-hidden="true">▲</span> Beat buy-and-hold by ${money(buyAndHold.excess)}${relative}`
      : kind === 'neg'
        ? `<span class="arrow" aria-hidden="true">▼</span> Lagged buy-and-hold by ${money(buyAndHold.excess)}${relative}`
        : `<span class="arrow" aria-hidden="true">=</span> Matched buy-and-hold`
  const toned = (fraction: number) => `<b class="${signClass(fraction * 100, 2)}">${escapeHtml(formatReturn(fraction))}</b>`
  const holdKind = signClass(holdStart.excess, decimals)
  const holdWords =
    holdKind === 'pos' ? `beat by ${money(holdStart.excess)}` : holdKind === 'neg' ? `lagged by ${money(holdStart.excess)}` : 'matched'
  const market =
    summary.metrics.marketChange === null ? '' : ` · ${escapeHtml(pair.base)} price ${toned(summary.metrics.marketChange)} over the period`
  return `<section class="headline ${kind}" aria-label="Result against buy-and-hold">
<p class="verdict">${verdict}</p>
<p class="detail">Strategy ${toned(summary.metrics.totalReturn)} to ${money(summary.endValue)} · buy-and-hold ${toned(
    buyAndHold.return,
  )} to ${money(buyAndHold.endValue)}${market}</p>
<p class="detail">Against keeping the starting balances (${toned(holdStart.return)} to ${money(holdStart.endValue)}): ${holdWords}</p>
</section>`
}

/** The engine's warnings and those the figures themselves raise. */
export function reportWarnings(result: BacktestResult): string[] {
  const { summary } = result
  const warnings = [...result.warnings]
  if (summary.strategyErrors > 0) {
    warnings.push(
      `The strategy threw ${formatAmount(summary.strategyErrors, 0)} errors that were caught; at those points it did not act as written.`,
    )
  }
  const orders = Object.values(summary.ordersByStatus).reduce((sum, count) => sum + count, 0)
  if (summary.trades === 0)
    warnings.push('No fills: the result is the same as keeping the starting balances, whatever the strategy intended.')
  else if (orders > 0 && summary.fillRate < 0.5) warnings.push(`Only ${formatPercent(summary.fillRate, 0)} of orders filled.`)
  if (result.series.equity.length === 0) warnings.push('The result has no equity series; the equity chart is empty.')
  return warnings
}

function keyFigures(result: BacktestResult, decimals: number): string {
  const { summary } = result
  const { metrics } = summary
  const { buyAndHold } = summary.benchmarks
  const quote = result.pair.quote
  const cards: Card[] = [
    {
      label: 'End value',
      value: `${formatAmount(summary.endValue, decimals)} ${quote}`,
      note: `from ${formatAmount(summary.startValue, decimals)}`,
    },
    {
      label: 'Return',
      value: formatReturn(metrics.totalReturn),
      tone: signClass(metrics.totalReturn * 100, 2),
      note: `buy-and-hold ${formatReturn(buyAndHold.return)}`,
    },
    {
      label: 'vs buy-and-hold',
      value: `${formatSigned(buyAndHold.excess, decimals)} ${quote}`,
      tone: signClass(buyAndHold.excess, decimals),
    },
    {
      label: 'Maximum drawdown',
      value: metrics.maxDrawdown > 0 ? `-${formatPercent(metrics.maxDrawdown, 1)}` : formatPercent(0, 1),
      ...(metrics.maxDrawdownWindow?.recoveredAt === null ? { note: 'not recovered' } : {}),
    },
    {
      label: 'Sharpe',
      value: metrics.sharpe === null ? null : formatRatio(metrics.sharpe),
      why: 'Not enough varying returns to compute it (see Metrics).',
      note: `Sortino ${metrics.sortino === null ? '–' : formatRatio(metrics.sortino)}`,
    },
    { label: 'Trades', value: formatAmount(summary.trades, 0), note: `fill rate ${formatPercent(summary.fillRate, 0)}` },
    { label: 'Fees + gas', value: `${formatAmount(summary.fees + summary.gas, decimals)} ${quote}` },
    summary.slippageBps
      ? { label: 'Slippage p95', value: formatBps(summary.slippageBps.p95), note: `median ${formatBps(summary.slippageBps.p50)}` }
      : { label: 'Slippage p95', value: null, why: 'No fills.' },
  ]
  return cardsSection(cards)
}

function footer(result: BacktestResult): string {
  return `<footer>
<h2>Reproduce</h2>
<dl>
<dt>Config</dt><dd>${escapeHtml(result.config)}</dd>
<dt>Quotes</dt><dd>${escapeHtml(result.quotes)}</dd>
<dt>Seed</dt><dd>${escapeHtml(String(result.seed))}</dd>
<dt>Trades hash</dt><dd class="id">${escapeHtml(result.tradesHash)}</dd>
<dt>Fill model</dt><dd>${result.summary.fillModel}</dd>
</dl>
<p class="note">The same config, quotes, seed and fill model give the same trades hash. Report format ${result.version}; this page loads nothing from the network.</p>
</footer>`
}
