import { describe, expect, it } from 'vitest'
import { type BacktestResult, BacktestResultError, parseBacktestResult, type SeriesPoint } from '../../src/backtest/backtest-result.js'
import { downsampleSeries } from '../../src/backtest/downsample-series.js'
import { renderBacktestReport } from '../../src/backtest/render-report.js'
import { chartGeometry, fillGroupWidth, maxFillMarkers, plotWidth } from '../../src/backtest/report-charts.js'
import type { SweepRow } from '../../src/backtest/sweep-table.js'
import { chartMarks } from '../helpers/chromium.js'
import { syntheticBacktestResult } from './synthetic-backtest-result.js'

function sideCounts(result: BacktestResult): { buy: number; sell: number } {
  return {
    buy: result.fills.filter((fill) => fill.side === 'BUY').length,
    sell: result.fills.filter((fill) => fill.side === 'SELL').length,
  }
}

function sum(values: readonly number[]): number {
  return values.reduce((total, value) => total + value, 0)
}

/** The JSON the page hands its script. */
function scriptData(html: string): string {
  const start = html.indexOf('<script type="application/json" id="report-data">')
  const end = html.indexOf('</script>', start)
  return html.slice(html.indexOf('>', start) + 1, end)
}

describe('renderBacktestReport', () => {
  it('draws the equity, price and slippage charts as inline SVG, one mark per datum', () => {
    const result = syntheticBacktestResult({ points: 2000, fills: 40 })
    const html = renderBacktestReport(result)

    const equity = chartMarks(html, 'chart-equity')
    expect(equity.lines.map((line) => [line.className, line.commands])).toEqual([
      ['line hold dashed', 2000],
      ['line equity', 2000],
    ])
    const price = chartMarks(html, 'chart-price')
    expect(price.lines.map((line) => [line.className, line.commands])).toEqual([['line price', 2000]])
    const { buy, sell } = sideCounts(result)
    expect(price.markers).toHaveLength(40)
    expect(price.markers.filter((marker) => marker.side === 'buy')).toHaveLength(buy)
    expect(price.markers.filter((marker) => marker.side === 'sell')).toHaveLength(sell)
    expect(price.markers.every((marker) => marker.count === 1)).toBe(true)

    const slippage = chartMarks(html, 'chart-slippage')
    expect(slippage.bars.length).toBeGreaterThan(1)
    expect(sum(slippage.bars.map((bar) => bar.count))).toBe(40)
    // drawn when rendered: nothing waits for a script
    expect(html).not.toContain('<noscript')
  })

  it('places each fill marker at its time', () => {
    const result = syntheticBacktestResult({ points: 500, fills: 12 })
    const html = renderBacktestReport(result)
    const starts = [...(chartMarks(html, 'chart-price').svg ?? '').matchAll(/<path d="M([\d.]+) /g)].map((match) => Number(match[1]))
    // the first path is the price line, then one triangle per fill whose tip sits at the fill's x
    const expected = result.fills.map((fill) => {
      const x = chartGeometry.left + ((fill.t - result.from) / (result.to - result.from)) * plotWidth
      return Math.round(x * 10) / 10
    })
    expect(starts.slice(1)).toEqual(expected)
  })

  it('marks one triangle per fill up to the cap, then groups fills per column and side', () => {
    const atCap = syntheticBacktestResult({ points: 300, fills: maxFillMarkers })
    expect(chartMarks(renderBacktestReport(atCap), 'chart-price').markers).toHaveLength(maxFillMarkers)

    const busy = syntheticBacktestResult({ points: 300, fills: 5000 })
    const html = renderBacktestReport(busy)
    const markers = chartMarks(html, 'chart-price').markers
    expect(markers.length).toBeGreaterThan(0)
    expect(markers.length).toBeLessThanOrEqual(2 * Math.ceil(plotWidth / fillGroupWidth))
    expect(sum(markers.filter((marker) => marker.side === 'buy').map((marker) => marker.count))).toBe(sideCounts(busy).buy)
    expect(sum(markers.filter((marker) => marker.side === 'sell').map((marker) => marker.count))).toBe(sideCounts(busy).sell)
    expect(html).toContain('5,000 fills, grouped per 2 pixel columns and side')
    expect(sum(chartMarks(html, 'chart-slippage').bars.map((bar) => bar.count))).toBe(5000)
  })

  it('thins a million points per series to a page of a few hundred kB', () => {
    const result = syntheticBacktestResult({ points: 1_000_000, fills: maxFillMarkers })
    const html = renderBacktestReport(result)
    expect(html.length).toBeLessThan(600_000)
    for (const id of ['chart-equity', 'chart-price']) {
      for (const line of chartMarks(html, id).lines) {
        expect(line.commands).toBeGreaterThan(plotWidth)
        expect(line.commands).toBeLessThanOrEqual(4 * plotWidth)
      }
    }
    expect(html).toContain('Drawn from 1,000,000 points')
    // the hover readout gets one value per pixel column, not the series
    expect(scriptData(html).length).toBeLessThan(40_000)
  })

  it('escapes hostile strategy names, order ids, symbols, file names and warnings', () => {
    const hostile = `<script>alert("x")</script><img src=x onerror=alert(1)> & 'q'`
    const escaped = '&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt; &amp; &#39;q&#39;'
    const result = syntheticBacktestResult({ points: 200, fills: 5, strategyName: hostile, warnings: [hostile] })
    result.pair = { base: '<b>ETH</b>', quote: 'US"DC' }
    result.config = '/tmp/</title><script>alert(2)</script>.yaml'
    result.quotes = hostile
    for (const fill of result.fills) fill.orderId = hostile
    const html = renderBacktestReport(result)

    expect(html.match(/<script\b/g)).toHaveLength(2)
    expect(html).not.toContain('<img')
    expect(html).not.toContain('<b>ETH')
    expect(html).not.toContain('</title><script')
    expect(html).toContain(`<li>${escaped}</li>`)
    expect(html).toContain(`<th scope="row">${escaped}</th>`)
    expect(html).toContain('&lt;b&gt;ETH&lt;/b&gt;/US&quot;DC')
    const data = scriptData(html)
    expect(data).not.toMatch(/[<>&]/)
    const labels = (JSON.parse(data) as { readouts: { lines: { label: string }[] }[] }).readouts.flatMap((chart) =>
      chart.lines.map((line) => line.label),
    )
    expect(labels).toContain('Price, US"DC per <b>ETH</b>')
  })

  it('renders the same result to the same bytes, in any time zone', () => {
    const first = renderBacktestReport(syntheticBacktestResult({ points: 3000, fills: 60 }))
    const copy = JSON.parse(JSON.stringify(syntheticBacktestResult({ points: 3000, fills: 60 }))) as BacktestResult
    const zone = process.env.TZ
    try {
      process.env.TZ = 'Pacific/Chatham'
      expect(renderBacktestReport(copy)).toBe(first)
    } finally {
      if (zone === undefined) delete process.env.TZ
      else process.env.TZ = zone
    }
    expect(renderBacktestReport(syntheticBacktestResult({ points: 3000, fills: 60, seed: 8 }))).not.toBe(first)
  })

  it.each<[string, (result: BacktestResult) => void]>([
    ['summary.pnl', (result) => (result.summary.pnl = Number.NaN)],
    ['series.price.5.0', (result) => (result.series.price[5] = [0, 1])],
    ['series.equity.2.1', (result) => ((result.series.equity[2] as SeriesPoint)[1] = Number.POSITIVE_INFINITY)],
    ['fills.3.side', (result) => ((result.fills[3] as unknown as { side: string }).side = 'HOLD')],
    ['strategies.0.fills', (result) => ((result.strategies[0] as { fills: number }).fills = -1)],
    ['summary.fillRate', (result) => (result.summary.fillRate = 1.5)],
    ['version', (result) => ((result as unknown as { version: number }).version = 2)],
  ])('refuses a result whose %s is wrong, naming the path', (path, spoil) => {
    const result = syntheticBacktestResult({ points: 50, fills: 5 })
    spoil(result)
    expect(() => renderBacktestReport(result, { source: 'run.json' })).toThrowError(BacktestResultError)
    expect(() => renderBacktestReport(result, { source: 'run.json' })).toThrowError(
      new RegExp(`^run\\.json is not a backtest result: ${path.replace(/\./g, '\\.')}: `),
    )
  })

  it('refuses a sweep row that is not a summary, naming the row', () => {
    const result = syntheticBacktestResult({ points: 50, fills: 5 })
    const sweep = [{ parameters: { slices: 4 }, summary: { ...result.summary, trades: -1 } }]
    expect(() => renderBacktestReport(result, { sweep })).toThrowError(/sweep\.0\.summary\.trades: /)
  })

  it('renders a run without fills: no markers, an empty histogram and a warning', () => {
    const result = syntheticBacktestResult({ points: 400, fills: 0 })
    result.summary.fillRate = 0
    result.summary.ordersByStatus = {}
    result.strategies = [{ name: 'idle', orders: {}, fills: 0, bought: 0, sold: 0, fees: 0, gas: 0, pnl: 0, errors: 0 }]
    expect(result.summary.executionPrice).toBeNull()
    expect(result.summary.slippageBps).toBeNull()
    const html = renderBacktestReport(result)
    expect(chartMarks(html, 'chart-price').markers).toEqual([])
    expect(chartMarks(html, 'chart-price').lines).toHaveLength(1)
    expect(chartMarks(html, 'chart-slippage').bars).toEqual([])
    expect(chartMarks(html, 'chart-slippage').svg).toContain('No fills, so no slippage to show.')
    expect(html).toContain('No fills: the result is the same as holding')
    expect(html).not.toMatch(/NaN|Infinity|undefined/)
  })

  it('renders a crosschain stable rebalancer whose base holdings stay 0', () => {
    const from = Date.UTC(2024, 0, 1)
    const flat = (value: number): SeriesPoint[] => Array.from({ length: 100 }, (_, index): SeriesPoint => [from + index * 60_000, value])
    const result = parseBacktestResult({
      ...syntheticBacktestResult({ points: 10, fills: 0 }),
      from,
      to: from + 99 * 60_000,
      pair: { base: 'USDC.e', quote: 'USDC' },
      series: { equity: flat(10_000), hold: flat(10_000), price: flat(1) },
      fills: [],
      strategies: [
        { name: 'stable-rebalancer', orders: { COMPLETED: 3 }, fills: 3, bought: 0, sold: 0, fees: 1.2, gas: 0.9, pnl: -2.1, errors: 0 },
      ],
    })
    result.summary = {
      ...result.summary,
      startValue: 10_000,
      endValue: 9997.9,
      holdEndValue: 10_000,
      pnl: -2.1,
      pnlVsHold: -2.1,
      executionPrice: null,
      averagePrice: 1,
      slippageBps: null,
      maxDrawdown: 0,
      maxDrawdownWindow: null,
      trades: 0,
      fillRate: 1,
      ordersByStatus: { COMPLETED: 3 },
      startHoldings: { base: 0, quote: 10_000 },
      endHoldings: { base: 0, quote: 9997.9 },
    }
    const html = renderBacktestReport(result)
    expect(chartMarks(html, 'chart-equity').lines.map((line) => line.commands)).toEqual([100, 100])
    expect(chartMarks(html, 'chart-price').lines.map((line) => line.commands)).toEqual([100])
    expect(html).toContain('0 USDC.e + 10,000.00 USDC')
    expect(html).not.toMatch(/NaN|Infinity|undefined/)
  })

  it('renders a result without any series (no quotes in the period) with empty charts', () => {
    const result = syntheticBacktestResult({ points: 0, fills: 0 })
    result.summary.averagePrice = null
    const html = renderBacktestReport(result)
    expect(chartMarks(html, 'chart-equity').svg).toContain('No equity series in this result.')
    expect(chartMarks(html, 'chart-price').svg).toContain('No price series in this result.')
    expect(html).toContain('The result has no equity series')
    expect(JSON.parse(scriptData(html))).toEqual({ readouts: [] })
  })

  it('accepts a drawdown of more than 100 % (equity below zero)', () => {
    const result = syntheticBacktestResult({ points: 50, fills: 5 })
    result.summary.maxDrawdown = 1.4
    expect(renderBacktestReport(result)).toContain('140.0 %')
  })

  it('ranks the sweep combinations by PnL against holding, best first', () => {
    const result = syntheticBacktestResult({ points: 50, fills: 5 })
    const sweep: SweepRow[] = [5, 20, -3].map((pnlVsHold, index) => ({
      parameters: { slices: index + 2 },
      summary: { ...result.summary, pnlVsHold },
    }))
    const html = renderBacktestReport(result, { sweep })
    const section = html.slice(html.indexOf('<section class="sweep">'), html.indexOf('</section>', html.indexOf('<section class="sweep">')))
    const rows = [
      ...section.matchAll(/<tr( class="best")?><td class="num">(\d)<\/td><td class="num">(\d)<\/td><td class="num (pos|neg)">([^<]+)</g),
    ].map((match) => [match[1] !== undefined, Number(match[2]), Number(match[3]), match[5]])
    expect(rows).toEqual([
      [true, 1, 3, '+20.00'],
      [false, 2, 2, '+5.00'],
      [false, 3, 4, '-3.00'],
    ])
  })
})

describe('downsampleSeries', () => {
  it("keeps each pixel column's first, lowest, highest and last point, so spikes survive", () => {
    const points: SeriesPoint[] = Array.from({ length: 10_000 }, (_, index): SeriesPoint => [index, index % 7])
    points[4321] = [4321, 1000]
    points[8765] = [8765, -1000]
    const thinned = downsampleSeries(points, 100)
    expect(thinned.length).toBeLessThanOrEqual(400)
    expect(thinned).toContainEqual([4321, 1000])
    expect(thinned).toContainEqual([8765, -1000])
    expect(thinned[0]).toEqual([0, 0])
    expect(thinned.at(-1)).toEqual(points.at(-1))
    expect(thinned.every((point, index) => index === 0 || point[0] > (thinned[index - 1] as SeriesPoint)[0])).toBe(true)
  })

  it('returns a series that already fits as a copy', () => {
    const points: SeriesPoint[] = [
      [1, 2],
      [3, 4],
    ]
    const thinned = downsampleSeries(points, 10)
    expect(thinned).toEqual(points)
    expect(thinned).not.toBe(points)
  })

  it('refuses a column count that is not a positive integer', () => {
    expect(() => downsampleSeries([], 0)).toThrowError('buckets must be a positive integer, got 0')
  })
})
