import { describe, expect, it } from 'vitest'
import { type BacktestMetrics, type BacktestSummary, backtestSummarySchema } from '../../src/backtest/backtest-result.js'
import { formatSweepTable, type SweepRow } from '../../src/backtest/sweep-table.js'

const metrics: BacktestMetrics = {
  totalReturn: 0.01,
  cagr: null,
  marketChange: 0.02,
  volatility: 0.4,
  sharpe: 1.5,
  sortino: 2,
  calmar: null,
  maxDrawdown: 0.03,
  maxDrawdownWindow: { from: 0, to: 3_600_000, recoveredAt: null },
  maxDrawdownDurationMs: 3_600_000,
  exposure: 0.5,
  feesShareOfVolume: 0.001,
  gasShareOfVolume: 0,
  returns: { period: 'hour', periodMs: 3_600_000, periodsPerYear: 8760, riskFreeRate: 0, count: 48 },
  roundTrips: null,
}

/** A summary ending `excess` above buy-and-hold (which ended at 10,050 from 10,000). */
function summaryOf(excess: number, more: Partial<BacktestSummary> = {}): BacktestSummary {
  const endValue = 10_050 + excess
  return backtestSummarySchema.parse({
    startValue: 10_000,
    endValue,
    pnl: endValue - 10_000,
    benchmarks: {
      buyAndHold: { endValue: 10_050, return: 0.005, excess },
      holdStart: { endValue: 10_000, return: 0, excess: endValue - 10_000 },
    },
    executionPrice: 2000,
    averagePrice: 2010,
    slippageBps: { mean: 1, p50: 1, p95: 4 },
    fees: 3,
    gas: 1,
    fillRate: 1,
    ordersByStatus: { COMPLETED: 4 },
    trades: 4,
    startHoldings: { base: 0, quote: 10_000 },
    endHoldings: { base: 1, quote: 8_000 },
    strategyErrors: 0,
    fillModel: 'realistic',
    metrics: { ...metrics, totalReturn: endValue / 10_000 - 1 },
    ...more,
  })
}

function row(parameters: SweepRow['parameters'], excess: number, more: Partial<BacktestSummary> = {}): SweepRow {
  return { parameters, summary: summaryOf(excess, more) }
}

/** The text table's rows below the header and rule, split into cells. */
function textRows(text: string): string[][] {
  return text
    .trimEnd()
    .split('\n')
    .slice(3)
    .map((line) => line.trim().split(/\s{2,}/))
}

describe('formatSweepTable', () => {
  const rows = [row({ slices: 4, mode: 'delta' }, 12.5), row({ slices: 8, mode: 'market' }, 40), row({ slices: 16, mode: 'delta' }, -7.25)]

  it('ranks the combinations by excess over buy-and-hold, best first', () => {
    const { text } = formatSweepTable(rows, { quote: 'USDC' })
    expect(text.split('\n')[0]).toBe('Parameter sweep: 3 combinations, ranked by excess over buy-and-hold (USDC).')
    expect(textRows(text).map((cells) => cells.slice(0, 4))).toEqual([
      ['1', '8', 'market', '+40.00'],
      ['2', '4', 'delta', '+12.50'],
      ['3', '16', 'delta', '-7.25'],
    ])
  })

  it('keeps the given order with `as-given`, still showing each rank', () => {
    const { text } = formatSweepTable(rows, { order: 'as-given' })
    expect(textRows(text).map((cells) => cells.slice(0, 2))).toEqual([
      ['2', '4'],
      ['1', '8'],
      ['3', '16'],
    ])
  })

  it('keeps the given order between combinations that tie', () => {
    const tied = [row({ slices: 1 }, 5), row({ slices: 2 }, 9), row({ slices: 3 }, 5)]
    expect(textRows(formatSweepTable(tied).text).map((cells) => cells.slice(0, 2))).toEqual([
      ['1', '2'],
      ['2', '1'],
      ['3', '3'],
    ])
  })

  it('aligns the text columns: numbers to the right, words to the left', () => {
    const lines = formatSweepTable(rows).text.trimEnd().split('\n').slice(1)
    // the last column is numeric, so every line ends at the same width
    expect(new Set(lines.map((line) => line.length)).size).toBe(1)
    expect(lines[0]?.startsWith('#  slices  mode    vs B&H')).toBe(true)
    expect(lines[2]?.startsWith('1       8  market  +40.00')).toBe(true)
    expect(lines[4]?.startsWith('3      16  delta    -7.25')).toBe(true)
  })

  it('shows the key figures of each combination', () => {
    const [first] = textRows(
      formatSweepTable([
        row({ slices: 4 }, 1, {
          metrics: { ...metrics, totalReturn: 0.0051, sharpe: 1.234, maxDrawdown: 0.0567 },
          trades: 1234,
          fillRate: 0.5,
          fees: 10,
          gas: 2.5,
          slippageBps: null,
        }),
      ]).text,
    )
    // excess over buy-and-hold, PnL, return, Sharpe, max drawdown, trades, fill rate, fees + gas, slippage p95
    expect(first).toEqual(['1', '4', '+1.00', '+51.00', '+0.51 %', '1.23', '5.7 %', '1,234', '50 %', '12.50', '-'])
  })

  it('shows a Sharpe ratio the run could not give as -', () => {
    const [first] = textRows(formatSweepTable([row({ slices: 4 }, 1, { metrics: { ...metrics, sharpe: null } })]).text)
    expect(first?.[5]).toBe('-')
  })

  it('shows a parameter a combination lacks as -', () => {
    const { text } = formatSweepTable([row({ slices: 4 }, 1), row({ slices: 8, window: 30 }, 2)])
    expect(textRows(text).map((cells) => cells.slice(0, 3))).toEqual([
      ['1', '8', '30'],
      ['2', '4', '-'],
    ])
  })

  it('marks the best row and the signs in HTML, escaping parameter names and values', () => {
    const { html } = formatSweepTable([row({ '<b>path</b>': '"a&b"' }, -1), row({ '<b>path</b>': '<i>' }, 3)])
    expect(html).not.toMatch(/<b>|<i>/)
    expect(html).toContain('<th scope="col">&lt;b&gt;path&lt;/b&gt;</th>')
    const body = html.slice(html.indexOf('<tbody>'))
    expect(body).toContain('<tr class="best"><td class="num">1</td><td>&lt;i&gt;</td><td class="num pos">+3.00</td>')
    expect(body).toContain('<tr><td class="num">2</td><td>&quot;a&amp;b&quot;</td><td class="num neg">-1.00</td>')
  })

  it('says so when the sweep has no combinations', () => {
    const { text, html } = formatSweepTable([])
    expect(text).toBe('Parameter sweep: no combinations.\n')
    expect(html).not.toContain('<table')
  })
})
