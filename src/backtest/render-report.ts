import { basename } from 'node:path'
import { z } from 'zod'
import {
  type BacktestFill,
  type BacktestResult,
  BacktestResultError,
  backtestSummarySchema,
  parseBacktestResult,
} from './backtest-result.js'
import { reportChartScript } from './report-chart-script.js'
import {
  buildEquityChart,
  buildPriceChart,
  buildSlippageChart,
  type ChartModel,
  type DrawnCount,
  fillGroupWidth,
  maxFillMarkers,
  plotWidth,
} from './report-charts.js'
import {
  escapeHtml,
  formatAmount,
  formatBps,
  formatCounts,
  formatDuration,
  formatPercent,
  formatPrice,
  formatSigned,
  formatSignedPercent,
  formatTime,
  formatTokenAmount,
  jsonForScript,
  valueDecimals,
} from './report-format.js'
import { reportStyles } from './report-styles.js'
import { renderChartSvg } from './report-svg.js'
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

// The page allows nothing from outside: no requests at all, only its own inline style and script.
const contentSecurityPolicy = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:"

/**
 * The backtest report as one self-contained HTML file (inline CSS and script, no network): the PnL against holding as
 * the headline, warnings, key figures, the equity curve against holding, the price with every fill marked, the
 * slippage histogram, the full summary, one row per strategy, the worst fills, and what reproduces the run. The charts
 * are inline SVG drawn here, so the page shows them with scripts off; the script only adds a hover readout. Large
 * series are thinned to the chart's pixel columns, so a million points make a page of a few hundred kB. Every text
 * from the result (strategy names, file names, order ids, warnings) is escaped. Same result, same bytes.
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
  const equity = buildEquityChart(result)
  const price = buildPriceChart(result)
  const slippage = buildSlippageChart(result)
  const title = `Backtest ${basename(result.config)}: ${result.pair.base}/${result.pair.quote}`
  const body = [
    header(result),
    headline(result, decimals),
    warningsSection(result),
    keyFigures(result, decimals),
    chartSection({
      chart: equity.chart,
      heading: 'Equity against holding',
      description: `Value of the strategy's holdings in ${result.pair.quote}, against simply keeping the starting balances.`,
      legend: [
        ['swatch-equity', 'Strategy'],
        ['swatch-hold', 'Holding (dashed)'],
        ...(equity.chart.bands.length > 0 ? ([['swatch-band', 'Maximum drawdown']] as [string, string][]) : []),
      ],
      counts: equity.counts,
    }),
    chartSection({
      chart: price.chart,
      heading: `Price and fills`,
      description: `${result.pair.quote} per ${result.pair.base}. Hover a triangle for the fill.${
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
      description: 'Basis points between the price a fill got and the price its order was planned at; positive is worse for the trader.',
      legend: [
        ['swatch-better', 'Better than planned'],
        ['swatch-worse', 'Worse than planned'],
      ],
      counts: [],
    }),
    summaryTable(result, decimals),
    strategiesTable(result, decimals),
    worstFillsTable(result, decimals),
    sweep.length > 0 ? formatSweepTable(sweep, { quote: result.pair.quote }).html : '',
    footer(result),
  ]
  const data = jsonForScript({
    readouts: [equity.chart, price.chart].filter((chart) => chart.readout && chart.empty === null).map(readoutData),
  })
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${contentSecurityPolicy}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${reportStyles}</style>
</head>
<body>
<main>
${body.filter(Boolean).join('\n')}
</main>
<script type="application/json" id="report-data">${data}</script>
<script>${reportChartScript}</script>
</body>
</html>
`
}

/**
 * What the hover readout needs of a chart: its axes' ranges and, per line, the last value in each pixel column (null
 * where the line has no point), 7 significant digits. A few kB per line, whatever the length of the series.
 */
function readoutData(chart: ChartModel) {
  const span = chart.x.max - chart.x.min
  return {
    id: chart.id,
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

function signClass(value: number, decimals: number): 'pos' | 'neg' | 'flat' {
  if (Math.abs(value) < 0.5 * 10 ** -decimals) return 'flat'
  return value > 0 ? 'pos' : 'neg'
}

function header(result: BacktestResult): string {
  return `<header>
<h1>Backtest of ${escapeHtml(basename(result.config))}</h1>
<p class="meta">${escapeHtml(result.pair.base)}/${escapeHtml(result.pair.quote)} · ${escapeHtml(formatTime(result.from))} to ${escapeHtml(
    formatTime(result.to),
  )} UTC (${escapeHtml(formatDuration(result.to - result.from))}) · ${escapeHtml(formatAmount(result.summary.trades, 0))} trades · seed ${escapeHtml(
    String(result.seed),
  )}</p>
</header>`
}

function headline(result: BacktestResult, decimals: number): string {
  const { summary } = result
  const quote = escapeHtml(result.pair.quote)
  const kind = signClass(summary.pnlVsHold, decimals)
  const amount = `${escapeHtml(formatAmount(Math.abs(summary.pnlVsHold), decimals))} ${quote}`
  const verdict =
    kind === 'pos'
      ? `<span class="arrow" aria-hidden="true">▲</span> Beat holding by ${amount}`
      : kind === 'neg'
        ? `<span class="arrow" aria-hidden="true">▼</span> Trailed holding by ${amount}`
        : `<span class="arrow" aria-hidden="true">=</span> Same as holding`
  const ofStart =
    summary.startValue > 0 ? ` (${escapeHtml(formatSignedPercent(summary.pnlVsHold / summary.startValue))} of the start value)` : ''
  const holdPnl = summary.holdEndValue - summary.startValue
  const pnlPercent = summary.startValue > 0 ? ` (${escapeHtml(formatSignedPercent(summary.pnl / summary.startValue))})` : ''
  const holdPercent = summary.startValue > 0 ? ` (${escapeHtml(formatSignedPercent(holdPnl / summary.startValue))})` : ''
  return `<section class="headline ${kind}" aria-label="Result against holding">
<p class="verdict">${verdict}${ofStart}</p>
<p class="detail">Strategy PnL <b class="${signClass(summary.pnl, decimals)}">${escapeHtml(formatSigned(summary.pnl, decimals))} ${quote}</b>${pnlPercent} · holding the start balances: <b class="${signClass(
    holdPnl,
    decimals,
  )}">${escapeHtml(formatSigned(holdPnl, decimals))} ${quote}</b>${holdPercent} · maximum drawdown ${escapeHtml(formatPercent(summary.maxDrawdown, 1))}</p>
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
  if (summary.trades === 0) warnings.push('No fills: the result is the same as holding, whatever the strategy intended.')
  else if (orders > 0 && summary.fillRate < 0.5) warnings.push(`Only ${formatPercent(summary.fillRate, 0)} of orders filled.`)
  if (result.series.equity.length === 0) warnings.push('The result has no equity series; the equity chart is empty.')
  return warnings
}

function warningsSection(result: BacktestResult): string {
  const warnings = reportWarnings(result)
  if (warnings.length === 0) return ''
  return `<section class="warnings" role="note" aria-label="Warnings">
<h2>Read this first</h2>
<ul>
${warnings.map((warning) => `<li>${escapeHtml(warning)}</li>`).join('\n')}
</ul>
</section>`
}

function keyFigures(result: BacktestResult, decimals: number): string {
  const { summary } = result
  const quote = result.pair.quote
  type Card = { label: string; value: string; note?: string; tone?: string }
  const cards: Card[] = [
    {
      label: 'End value',
      value: `${formatAmount(summary.endValue, decimals)} ${quote}`,
      note: `from ${formatAmount(summary.startValue, decimals)}`,
    },
    { label: 'PnL vs hold', value: `${formatSigned(summary.pnlVsHold, decimals)} ${quote}`, tone: signClass(summary.pnlVsHold, decimals) },
    { label: 'PnL', value: `${formatSigned(summary.pnl, decimals)} ${quote}`, tone: signClass(summary.pnl, decimals) },
    { label: 'Maximum drawdown', value: formatPercent(summary.maxDrawdown, 1) },
    { label: 'Trades', value: formatAmount(summary.trades, 0), note: `fill rate ${formatPercent(summary.fillRate, 0)}` },
    { label: 'Fees + gas', value: `${formatAmount(summary.fees + summary.gas, decimals)} ${quote}` },
    summary.slippageBps
      ? { label: 'Slippage p95', value: formatBps(summary.slippageBps.p95), note: `median ${formatBps(summary.slippageBps.p50)}` }
      : { label: 'Slippage p95', value: '-' },
  ]
  const html = cards
    .map(
      (card) =>
        `<div class="card"><span class="label">${escapeHtml(card.label)}</span><span class="value${card.tone ? ` ${card.tone}` : ''}">${escapeHtml(
          card.value,
        )}</span>${card.note ? `<span class="note">${escapeHtml(card.note)}</span>` : ''}</div>`,
    )
    .join('\n')
  return `<section class="cards" aria-label="Key figures">\n${html}\n</section>`
}

function chartSection(chart: {
  chart: ChartModel
  heading: string
  description: string
  legend: [string, string][]
  counts: DrawnCount[]
}): string {
  const legend = chart.legend
    .map(([swatch, label]) => `<span class="key"><span class="swatch ${swatch}" aria-hidden="true"></span>${escapeHtml(label)}</span>`)
    .join(' ')
  const thinned = chart.counts.filter((count) => count.drawn < count.points)
  const drawnNote =
    thinned.length > 0
      ? ` Drawn from ${thinned.map((count) => `${formatAmount(count.points, 0)} points (${formatAmount(count.drawn, 0)} kept: first, lowest, highest and last per pixel column)`).join(' and ')}.`
      : ''
  return `<section class="chart">
<h2>${escapeHtml(chart.heading)}</h2>
<p class="note">${escapeHtml(chart.description + drawnNote)}</p>
${renderChartSvg(chart.chart, chart.heading)}
<p class="legend">${legend}</p>
</section>`
}

function row(label: string, value: string, note = '', tone = ''): string {
  return `<tr><th scope="row">${escapeHtml(label)}</th><td class="num${tone ? ` ${tone}` : ''}">${escapeHtml(value)}</td><td class="note">${escapeHtml(note)}</td></tr>`
}

function volumeWeighted(fills: readonly BacktestFill[], side: BacktestFill['side']): { price: number; base: number } | null {
  let base = 0
  let quote = 0
  for (const fill of fills) {
    if (fill.side !== side) continue
    base += fill.baseAmount
    quote += fill.quoteAmount
  }
  return base > 0 ? { price: quote / base, base } : null
}

function summaryTable(result: BacktestResult, decimals: number): string {
  const { summary, pair } = result
  const quote = pair.quote
  const value = (amount: number) => `${formatAmount(amount, decimals)} ${quote}`
  const signed = (amount: number) => `${formatSigned(amount, decimals)} ${quote}`
  const ofStart = (amount: number) =>
    summary.startValue > 0 ? `${formatSignedPercent(amount / summary.startValue)} of the start value` : ''
  const holdings = (balances: { base: number; quote: number }) =>
    `${formatTokenAmount(balances.base)} ${pair.base} + ${formatAmount(balances.quote, decimals)} ${quote}`
  const window = summary.maxDrawdownWindow
  const executionNote =
    summary.executionPrice !== null && summary.averagePrice !== null
      ? `${formatSigned(((summary.executionPrice - summary.averagePrice) / summary.averagePrice) * 10_000, 1)} bps from the period's average price`
      : ''
  const bought = volumeWeighted(result.fills, 'BUY')
  const sold = volumeWeighted(result.fills, 'SELL')
  const rows = [
    row('Period', `${formatTime(result.from)} to ${formatTime(result.to)} UTC`, formatDuration(result.to - result.from)),
    row('Start value', value(summary.startValue), holdings(summary.startHoldings)),
    row('End value', value(summary.endValue), holdings(summary.endHoldings)),
    row('PnL', signed(summary.pnl), ofStart(summary.pnl), signClass(summary.pnl, decimals)),
    row('Holding end value', value(summary.holdEndValue), 'the start balances, untouched'),
    row('PnL vs hold', signed(summary.pnlVsHold), ofStart(summary.pnlVsHold), signClass(summary.pnlVsHold, decimals)),
    row(
      'Maximum drawdown',
      formatPercent(summary.maxDrawdown, 2),
      window ? `${formatTime(window.from)} to ${formatTime(window.to)} UTC` : '',
    ),
    row('Trades (fills)', formatAmount(summary.trades, 0)),
    row('Orders', formatCounts(summary.ordersByStatus)),
    row('Fill rate', formatPercent(summary.fillRate, 1), 'orders with a fill'),
    row('Execution price', summary.executionPrice === null ? '-' : `${formatPrice(summary.executionPrice)} ${quote}`, executionNote),
    row(
      'Average price',
      summary.averagePrice === null ? '-' : `${formatPrice(summary.averagePrice)} ${quote}`,
      'time-average over the period',
    ),
    row(
      'Bought',
      bought ? `${formatTokenAmount(bought.base)} ${pair.base}` : '-',
      bought ? `at ${formatPrice(bought.price)} ${quote} on average` : '',
    ),
    row(
      'Sold',
      sold ? `${formatTokenAmount(sold.base)} ${pair.base}` : '-',
      sold ? `at ${formatPrice(sold.price)} ${quote} on average` : '',
    ),
    row(
      'Slippage',
      summary.slippageBps ? `mean ${formatBps(summary.slippageBps.mean)}` : '-',
      summary.slippageBps ? `median ${formatBps(summary.slippageBps.p50)}, 95th percentile ${formatBps(summary.slippageBps.p95)}` : '',
    ),
    row('Fees', value(summary.fees)),
    row('Gas', value(summary.gas)),
    row('Strategy errors', formatAmount(summary.strategyErrors, 0), 'caught and counted', summary.strategyErrors > 0 ? 'neg' : ''),
  ]
  return `<section>
<h2>Summary</h2>
<table class="figures summary">
<tbody>
${rows.join('\n')}
</tbody>
</table>
</section>`
}

function strategiesTable(result: BacktestResult, decimals: number): string {
  if (result.strategies.length === 0) return ''
  const { base, quote } = result.pair
  const rows = result.strategies.map(
    (strategy) =>
      `<tr><th scope="row">${escapeHtml(strategy.name)}</th><td>${escapeHtml(formatCounts(strategy.orders))}</td><td class="num">${escapeHtml(
        formatAmount(strategy.fills, 0),
      )}</td><td class="num">${escapeHtml(formatTokenAmount(strategy.bought))}</td><td class="num">${escapeHtml(
        formatTokenAmount(strategy.sold),
      )}</td><td class="num">${escapeHtml(formatAmount(strategy.fees, decimals))}</td><td class="num">${escapeHtml(
        formatAmount(strategy.gas, decimals),
      )}</td><td class="num ${signClass(strategy.pnl, decimals)}">${escapeHtml(formatSigned(strategy.pnl, decimals))}</td><td class="num${
        strategy.errors > 0 ? ' neg' : ''
      }">${escapeHtml(formatAmount(strategy.errors, 0))}</td></tr>`,
  )
  return `<section>
<h2>Strategies</h2>
<div class="scroll"><table class="figures">
<thead><tr><th scope="col">Strategy</th><th scope="col">Orders</th><th scope="col" class="num">Fills</th><th scope="col" class="num">Bought, ${escapeHtml(
    base,
  )}</th><th scope="col" class="num">Sold, ${escapeHtml(base)}</th><th scope="col" class="num">Fees, ${escapeHtml(
    quote,
  )}</th><th scope="col" class="num">Gas, ${escapeHtml(quote)}</th><th scope="col" class="num">PnL, ${escapeHtml(
    quote,
  )}</th><th scope="col" class="num">Errors</th></tr></thead>
<tbody>
${rows.join('\n')}
</tbody>
</table></div>
</section>`
}

/** The fills with the worst slippage, worst first. */
export function worstFills(fills: readonly BacktestFill[], count = 10): BacktestFill[] {
  const worst: BacktestFill[] = []
  for (const fill of fills) {
    if (worst.length === count && (worst[count - 1] as BacktestFill).slippageBps >= fill.slippageBps) continue
    let index = worst.length
    while (index > 0 && (worst[index - 1] as BacktestFill).slippageBps < fill.slippageBps) index--
    worst.splice(index, 0, fill)
    if (worst.length > count) worst.pop()
  }
  return worst
}

function worstFillsTable(result: BacktestResult, decimals: number): string {
  const worst = worstFills(result.fills)
  if (worst.length === 0) return ''
  const { base, quote } = result.pair
  const rows = worst.map(
    (fill) =>
      `<tr><td>${escapeHtml(formatTime(fill.t))}</td><td>${escapeHtml(fill.strategy)}</td><td class="${fill.side === 'BUY' ? 'buy' : 'sell'}">${
        fill.side
      }</td><td class="num">${escapeHtml(formatPrice(fill.price))}</td><td class="num">${escapeHtml(formatTokenAmount(fill.baseAmount))}</td><td class="num">${escapeHtml(
        formatAmount(fill.quoteAmount, decimals),
      )}</td><td class="num">${escapeHtml(formatBps(fill.slippageBps))}</td><td>${escapeHtml(fill.mode)}</td><td class="id">${escapeHtml(fill.orderId)}</td></tr>`,
  )
  return `<section>
<h2>Worst fills by slippage</h2>
<div class="scroll"><table class="figures">
<thead><tr><th scope="col">Time, UTC</th><th scope="col">Strategy</th><th scope="col">Side</th><th scope="col" class="num">Price, ${escapeHtml(
    quote,
  )}</th><th scope="col" class="num">${escapeHtml(base)}</th><th scope="col" class="num">${escapeHtml(
    quote,
  )}</th><th scope="col" class="num">Slippage</th><th scope="col">Mode</th><th scope="col">Order</th></tr></thead>
<tbody>
${rows.join('\n')}
</tbody>
</table></div>
</section>`
}

function footer(result: BacktestResult): string {
  return `<footer>
<h2>Reproduce</h2>
<dl>
<dt>Config</dt><dd>${escapeHtml(result.config)}</dd>
<dt>Quotes</dt><dd>${escapeHtml(result.quotes)}</dd>
<dt>Seed</dt><dd>${escapeHtml(String(result.seed))}</dd>
<dt>Trades hash</dt><dd class="id">${escapeHtml(result.tradesHash)}</dd>
</dl>
<p class="note">The same config, quotes and seed give the same trades hash. Report format ${result.version}; this page loads nothing from the network.</p>
</footer>`
}
