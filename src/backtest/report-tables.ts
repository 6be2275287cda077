import type { BacktestFill, BacktestResult, RoundTrips } from './backtest-result.js'
import {
  escapeHtml,
  formatAmount,
  formatBps,
  formatCounts,
  formatDuration,
  formatPercent,
  formatPrice,
  formatRatio,
  formatReturn,
  formatSigned,
  formatSignedPercent,
  formatTime,
  formatTokenAmount,
  notAvailable,
  signClass,
} from './report-format.js'

// The report's tables of figures: the execution summary, one row per strategy (with its round trips), one row per
// day, and the worst fills. Every text from the result is escaped; a figure the result could not give shows as a dash
// whose tooltip says why.

/** A figure's cell: its text (with a tone for signed amounts), or why it is missing. */
export type Figure = { text: string; tone?: string } | { missing: string }

export function figureCell(figure: Figure, className = 'num'): string {
  if ('missing' in figure) return `<td class="${className}">${notAvailable(figure.missing)}</td>`
  return `<td class="${className}${figure.tone ? ` ${figure.tone}` : ''}">${escapeHtml(figure.text)}</td>`
}

/** A row of a two-column figures table: label, figure, and a note on how to read it. */
export function figureRow(label: string, figure: Figure, note = ''): string {
  return `<tr><th scope="row">${escapeHtml(label)}</th>${figureCell(figure)}<td class="note">${escapeHtml(note)}</td></tr>`
}

export const noRoundTrip = 'No closed round trip: a strategy that only buys (or only sells) never closes one.'
const noLosingTrip = 'No losing round trip, so gross profit has nothing to be divided by.'

/** Round-trip figures in a fixed order: trips, win rate, average win, average loss, profit factor, expectancy. */
export function roundTripFigures(trips: RoundTrips | null, decimals: number): Figure[] {
  if (trips === null) return Array.from({ length: 6 }, () => ({ missing: noRoundTrip }))
  return [
    { text: formatAmount(trips.trades, 0) },
    { text: formatPercent(trips.winRate, 1) },
    trips.wins > 0 ? { text: formatAmount(trips.averageWin, decimals) } : { missing: 'No winning round trip.' },
    trips.losses > 0 ? { text: formatAmount(trips.averageLoss, decimals) } : { missing: 'No losing round trip.' },
    trips.profitFactor === null ? { missing: noLosingTrip } : { text: formatRatio(trips.profitFactor) },
    { text: formatSigned(trips.expectancy, decimals), tone: signClass(trips.expectancy, decimals) },
  ]
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

/** How the run traded: values and holdings, orders, prices got, slippage, costs. */
export function executionTable(result: BacktestResult, decimals: number): string {
  const { summary, pair } = result
  const quote = pair.quote
  const value = (amount: number): Figure => ({ text: `${formatAmount(amount, decimals)} ${quote}` })
  const holdings = (balances: { base: number; quote: number }) =>
    `${formatTokenAmount(balances.base)} ${pair.base} + ${formatAmount(balances.quote, decimals)} ${quote}`
  const executionNote =
    summary.executionPrice !== null && summary.averagePrice !== null
      ? `${formatSigned(((summary.executionPrice - summary.averagePrice) / summary.averagePrice) * 10_000, 1)} bps from the period's average price`
      : ''
  const bought = volumeWeighted(result.fills, 'BUY')
  const sold = volumeWeighted(result.fills, 'SELL')
  const noFills = { missing: 'No fills.' }
  const rows = [
    figureRow('Period', { text: `${formatTime(result.from)} to ${formatTime(result.to)} UTC` }, formatDuration(result.to - result.from)),
    figureRow('Start value', value(summary.startValue), holdings(summary.startHoldings)),
    figureRow('End value', value(summary.endValue), holdings(summary.endHoldings)),
    figureRow(
      'PnL',
      { text: `${formatSigned(summary.pnl, decimals)} ${quote}`, tone: signClass(summary.pnl, decimals) },
      summary.startValue > 0 ? `${formatSignedPercent(summary.pnl / summary.startValue)} of the start value` : '',
    ),
    figureRow('Trades (fills)', { text: formatAmount(summary.trades, 0) }),
    figureRow('Orders', { text: formatCounts(summary.ordersByStatus) }),
    figureRow('Fill rate', { text: formatPercent(summary.fillRate, 1) }, 'orders with a fill'),
    figureRow(
      'Execution price',
      summary.executionPrice === null ? noFills : { text: `${formatPrice(summary.executionPrice)} ${quote}` },
      executionNote,
    ),
    figureRow(
      'Average price',
      summary.averagePrice === null ? { missing: 'No price in the period.' } : { text: `${formatPrice(summary.averagePrice)} ${quote}` },
      'time-average over the period',
    ),
    figureRow(
      'Bought',
      bought ? { text: `${formatTokenAmount(bought.base)} ${pair.base}` } : { missing: 'No buys.' },
      bought ? `at ${formatPrice(bought.price)} ${quote} on average` : '',
    ),
    figureRow(
      'Sold',
      sold ? { text: `${formatTokenAmount(sold.base)} ${pair.base}` } : { missing: 'No sells.' },
      sold ? `at ${formatPrice(sold.price)} ${quote} on average` : '',
    ),
    figureRow(
      'Slippage',
      summary.slippageBps ? { text: `mean ${formatBps(summary.slippageBps.mean)}` } : noFills,
      summary.slippageBps ? `median ${formatBps(summary.slippageBps.p50)}, 95th percentile ${formatBps(summary.slippageBps.p95)}` : '',
    ),
    figureRow('Fees', value(summary.fees)),
    figureRow('Gas', value(summary.gas)),
    figureRow(
      'Strategy errors',
      { text: formatAmount(summary.strategyErrors, 0), tone: summary.strategyErrors > 0 ? 'neg' : '' },
      'caught and counted',
    ),
  ]
  return `<section>
<h2>Execution</h2>
<table class="figures summary">
<tbody>
${rows.join('\n')}
</tbody>
</table>
</section>`
}

/** One row per strategy: what it ordered and traded and its PnL; then its round trips, with all strategies' below. */
export function strategiesTable(result: BacktestResult, decimals: number): string {
  if (result.strategies.length === 0) return ''
  const { base, quote } = result.pair
  const head = (label: string) => `<th scope="col" class="num">${escapeHtml(label)}</th>`
  const activity = result.strategies.map((strategy) => {
    const cells: Figure[] = [
      { text: formatAmount(strategy.fills, 0) },
      { text: formatTokenAmount(strategy.bought) },
      { text: formatTokenAmount(strategy.sold) },
      { text: formatAmount(strategy.fees, decimals) },
      { text: formatAmount(strategy.gas, decimals) },
      { text: formatSigned(strategy.pnl, decimals), tone: signClass(strategy.pnl, decimals) },
      { text: formatAmount(strategy.errors, 0), tone: strategy.errors > 0 ? 'neg' : '' },
    ]
    return `<tr><th scope="row">${escapeHtml(strategy.name)}</th><td>${escapeHtml(formatCounts(strategy.orders))}</td>${cells
      .map((cell) => figureCell(cell))
      .join('')}</tr>`
  })
  // a strategy without a closed trip says so in words rather than six dashes
  const tripsRow = (name: string, trips: RoundTrips | null) =>
    `<tr><th scope="row">${escapeHtml(name)}</th>${
      trips === null
        ? `<td colspan="6" class="note">${escapeHtml(noRoundTrip)}</td>`
        : roundTripFigures(trips, decimals)
            .map((cell) => figureCell(cell))
            .join('')
    }</tr>`
  const trips = result.strategies.map((strategy) => tripsRow(strategy.name, strategy.roundTrips))
  const all = result.strategies.length > 1 ? `\n<tfoot>${tripsRow('All strategies', result.summary.metrics.roundTrips)}</tfoot>` : ''
  return `<section>
<h2>Strategies</h2>
<div class="scroll"><table class="figures strategies">
<thead><tr><th scope="col">Strategy</th><th scope="col">Orders</th>${[
    'Fills',
    `Bought, ${base}`,
    `Sold, ${base}`,
    `Fees, ${quote}`,
    `Gas, ${quote}`,
    `PnL, ${quote}`,
    'Errors',
  ]
    .map(head)
    .join('')}</tr></thead>
<tbody>
${activity.join('\n')}
</tbody>
</table></div>
<h3>Round trips</h3>
<p class="note">${escapeHtml(
    `Each sell matched first-in first-out against the strategy's earlier buys (and each buy against earlier sells); wins and losses net of fees, in ${quote}.`,
  )}</p>
<div class="scroll"><table class="figures round-trips">
<thead><tr><th scope="col">Strategy</th>${['Trips', 'Win rate', `Average win`, `Average loss`, 'Profit factor', `Expectancy per trip`]
    .map(head)
    .join('')}</tr></thead>
<tbody>
${trips.join('\n')}
</tbody>${all}
</table></div>
</section>`
}

/**
 * One row per UTC day: value at its start and end, return, trades, fees and gas, with the whole run as the last row.
 * The table scrolls inside a box of its own (header and totals stay in view), so a run of years stays readable.
 */
export function dailyTable(result: BacktestResult, decimals: number): string {
  const days = result.daily
  if (days.length === 0) return ''
  const { quote } = result.pair
  let trades = 0
  let fees = 0
  let gas = 0
  const rows = days.map((day) => {
    trades += day.trades
    fees += day.fees
    gas += day.gas
    return `<tr><th scope="row">${escapeHtml(day.day)}</th>${[
      { text: formatAmount(day.startValue, decimals) },
      { text: formatAmount(day.endValue, decimals) },
      { text: formatSignedPercent(day.return), tone: signClass(day.return * 100, 2) },
      { text: formatAmount(day.trades, 0) },
      { text: formatAmount(day.fees, decimals) },
      { text: formatAmount(day.gas, decimals) },
    ]
      .map((cell) => figureCell(cell))
      .join('')}</tr>`
  })
  const first = days[0] as (typeof days)[number]
  const last = days[days.length - 1] as (typeof days)[number]
  const total: Figure =
    first.startValue > 0
      ? { text: formatReturn(last.endValue / first.startValue - 1), tone: signClass((last.endValue / first.startValue - 1) * 100, 2) }
      : { missing: 'The first day starts at a value of 0 or less.' }
  const totals = [
    { text: formatAmount(first.startValue, decimals) },
    { text: formatAmount(last.endValue, decimals) },
    total,
    { text: formatAmount(trades, 0) },
    { text: formatAmount(fees, decimals) },
    { text: formatAmount(gas, decimals) },
  ]
  const head = (label: string) => `<th scope="col" class="num">${escapeHtml(label)}</th>`
  return `<section>
<h2>Day by day</h2>
<p class="note">${escapeHtml(
    `${formatAmount(days.length, 0)} UTC days; the first and last may be partial. Values in ${quote}; the return is the day's end value over its start value.`,
  )}</p>
<div class="scroll days" tabindex="0" role="region" aria-label="Day by day"><table class="figures daily">
<thead><tr><th scope="col">Day</th>${['Start', 'End', 'Return', 'Trades', 'Fees', 'Gas'].map(head).join('')}</tr></thead>
<tbody>
${rows.join('\n')}
</tbody>
<tfoot><tr><th scope="row">${escapeHtml(`All ${formatAmount(days.length, 0)} days`)}</th>${totals.map((cell) => figureCell(cell)).join('')}</tr></tfoot>
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

/** A long order id (a 32-byte hash) shortened to its ends, whole in the tooltip. */
function orderIdCell(id: string): string {
  if (id.length <= 20) return escapeHtml(id)
  return `<span title="${escapeHtml(id)}">${escapeHtml(`${id.slice(0, 10)}…${id.slice(-6)}`)}</span>`
}

export function worstFillsTable(result: BacktestResult, decimals: number): string {
  const worst = worstFills(result.fills)
  if (worst.length === 0) return ''
  const { base, quote } = result.pair
  const rows = worst.map(
    (fill) =>
      `<tr><td class="time">${escapeHtml(formatTime(fill.t))}</td><td>${escapeHtml(fill.strategy)}</td><td class="${fill.side === 'BUY' ? 'buy' : 'sell'}">${
        fill.side
      }</td>${figureCell(
        fill.plannedPrice === null ? { missing: 'The order had no planned price.' } : { text: formatPrice(fill.plannedPrice) },
      )}<td class="num">${escapeHtml(formatPrice(fill.price))}</td><td class="num">${escapeHtml(formatTokenAmount(fill.baseAmount))}</td><td class="num">${escapeHtml(
        formatAmount(fill.quoteAmount, decimals),
      )}</td><td class="num">${escapeHtml(formatBps(fill.slippageBps))}</td><td>${escapeHtml(fill.mode)}</td><td class="id">${orderIdCell(fill.orderId)}</td></tr>`,
  )
  return `<section>
<h2>Worst fills by slippage</h2>
<div class="scroll"><table class="figures">
<thead><tr><th scope="col">Time, UTC</th><th scope="col">Strategy</th><th scope="col">Side</th><th scope="col" class="num">Planned, ${escapeHtml(
    quote,
  )}</th><th scope="col" class="num">Price, ${escapeHtml(quote)}</th><th scope="col" class="num">${escapeHtml(
    base,
  )}</th><th scope="col" class="num">${escapeHtml(
    quote,
  )}</th><th scope="col" class="num">Slippage</th><th scope="col">Mode</th><th scope="col">Order</th></tr></thead>
<tbody>
${rows.join('\n')}
</tbody>
</table></div>
</section>`
}
