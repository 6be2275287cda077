import type { BacktestSummary } from './backtest-result.js'
import { escapeHtml, formatAmount, formatBps, formatPercent, formatSigned, formatSignedPercent, valueDecimals } from './report-format.js'

/** One combination of a parameter sweep and the summary of its backtest. */
export type SweepRow = {
  parameters: Readonly<Record<string, string | number | boolean>>
  summary: BacktestSummary
}

export type SweepTableOptions = {
  /** Symbol of the quote token, for the header. */
  quote?: string | undefined
  /**
   * `best-first` (default): by excess over buy-and-hold, highest first; `as-given`: the order of `rows`, ranks still
   * shown.
   */
  order?: 'best-first' | 'as-given' | undefined
}

type Cell = { text: string; numeric: boolean; sign?: number }
type Column = { header: string; numeric: boolean; cell: (row: SweepRow, rank: number) => Cell }

const missing = '-'

function number(text: string, sign?: number): Cell {
  return sign === undefined ? { text, numeric: true } : { text, numeric: true, sign }
}

function columnsOf(rows: readonly SweepRow[], decimals: number): Column[] {
  const names: string[] = []
  for (const row of rows) for (const name of Object.keys(row.parameters)) if (!names.includes(name)) names.push(name)
  const parameterColumns = names.map((name): Column => {
    const numeric = rows.every((row) => typeof row.parameters[name] === 'number' || row.parameters[name] === undefined)
    return {
      header: name,
      numeric,
      cell: (row) => {
        const value = row.parameters[name]
        return { text: value === undefined ? missing : String(value), numeric }
      },
    }
  })
  return [
    { header: '#', numeric: true, cell: (_row, rank) => number(String(rank)) },
    ...parameterColumns,
    {
      header: 'vs B&H',
      numeric: true,
      cell: ({ summary }) => number(formatSigned(excessOf(summary), decimals), excessOf(summary)),
    },
    { header: 'PnL', numeric: true, cell: ({ summary }) => number(formatSigned(summary.pnl, decimals), summary.pnl) },
    {
      header: 'return',
      numeric: true,
      cell: ({ summary }) => number(summary.startValue > 0 ? formatSignedPercent(summary.metrics.totalReturn) : missing),
    },
    {
      header: 'Sharpe',
      numeric: true,
      cell: ({ summary }) => number(summary.metrics.sharpe === null ? missing : summary.metrics.sharpe.toFixed(2)),
    },
    { header: 'max DD', numeric: true, cell: ({ summary }) => number(formatPercent(summary.metrics.maxDrawdown, 1)) },
    { header: 'trades', numeric: true, cell: ({ summary }) => number(formatAmount(summary.trades, 0)) },
    { header: 'fill rate', numeric: true, cell: ({ summary }) => number(formatPercent(summary.fillRate, 0)) },
    { header: 'fees+gas', numeric: true, cell: ({ summary }) => number(formatAmount(summary.fees + summary.gas, decimals)) },
    {
      header: 'slip p95',
      numeric: true,
      cell: ({ summary }) => number(summary.slippageBps ? formatBps(summary.slippageBps.p95) : missing),
    },
  ]
}

/** The end value above the buy-and-hold benchmark's, quote token: what combinations are ranked by. */
/** How far a run ended above buy-and-hold, quote token: what a sweep ranks by. */
export function excessOf(summary: BacktestSummary): number {
  return summary.benchmarks.buyAndHold.excess
}

/**
 * A parameter sweep at a glance: one row per combination with its parameters and key figures (excess over
 * buy-and-hold and PnL in the quote token, total return, Sharpe ratio, maximum drawdown, trades, fill rate, fees and
 * gas, 95th percentile slippage), ranked by excess over buy-and-hold. `text` is aligned for a terminal; `html` is a `<section>` that the backtest
 * report's styles know, with every parameter name and value escaped.
 */
export function formatSweepTable(rows: readonly SweepRow[], options: SweepTableOptions = {}): { text: string; html: string } {
  // by position, not by row object: the same row may be passed twice
  const best = rows
    .map((_row, index) => index)
    .sort((a, b) => excessOf((rows[b] as SweepRow).summary) - excessOf((rows[a] as SweepRow).summary))
  const ranks = new Array<number>(rows.length)
  for (let rank = 0; rank < best.length; rank++) ranks[best[rank] as number] = rank + 1
  const ordered = options.order === 'as-given' ? rows.map((_row, index) => index) : best
  const decimals = valueDecimals(rows[0]?.summary.startValue ?? 0)
  const columns = columnsOf(rows, decimals)
  const table = ordered.map((index) => columns.map((column) => column.cell(rows[index] as SweepRow, ranks[index] as number)))
  const unit = options.quote ? ` (${options.quote})` : ''
  const caption =
    rows.length === 0
      ? 'Parameter sweep: no combinations.'
      : `Parameter sweep: ${rows.length} combination${rows.length === 1 ? '' : 's'}, ranked by excess over buy-and-hold${unit}.`
  return { text: sweepText(caption, columns, table), html: sweepHtml(caption, columns, table) }
}

function sweepText(caption: string, columns: readonly Column[], table: readonly Cell[][]): string {
  const widths = columns.map((column, index) => Math.max(column.header.length, ...table.map((cells) => (cells[index] as Cell).text.length)))
  const line = (texts: readonly string[]) =>
    texts
      .map((text, index) =>
        (columns[index] as Column).numeric ? text.padStart(widths[index] as number) : text.padEnd(widths[index] as number),
      )
      .join('  ')
      .trimEnd()
  const lines = [caption]
  if (table.length > 0) {
    lines.push(line(columns.map((column) => column.header)))
    lines.push(widths.map((width) => '-'.repeat(width)).join('  '))
    for (const cells of table) lines.push(line(cells.map((cell) => cell.text)))
  }
  return `${lines.join('\n')}\n`
}

function sweepHtml(caption: string, columns: readonly Column[], table: readonly Cell[][]): string {
  const header = columns
    .map((column) => `<th${column.numeric ? ' class="num"' : ''} scope="col">${escapeHtml(column.header)}</th>`)
    .join('')
  const body = table
    .map((cells) => {
      const tds = cells
        .map((cell) => {
          const classes = [cell.numeric ? 'num' : '', cell.sign === undefined ? '' : cell.sign > 0 ? 'pos' : cell.sign < 0 ? 'neg' : '']
          const attribute = classes.filter(Boolean).join(' ')
          return `<td${attribute ? ` class="${attribute}"` : ''}>${escapeHtml(cell.text)}</td>`
        })
        .join('')
      return `<tr${cells[0]?.text === '1' ? ' class="best"' : ''}>${tds}</tr>`
    })
    .join('\n')
  return [
    '<section class="sweep">',
    '<h2>Parameter sweep</h2>',
    `<p class="note">${escapeHtml(caption)}</p>`,
    table.length === 0
      ? ''
      : `<div class="scroll"><table class="figures">\n<thead><tr>${header}</tr></thead>\n<tbody>\n${body}\n</tbody>\n</table></div>`,
    '</section>',
  ]
    .filter(Boolean)
    .join('\n')
}
