import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { type BacktestResult, BacktestResultError, parseBacktestResult, type SeriesPoint } from '../../src/backtest/backtest-result.js'
import { downsampleSeries } from '../../src/backtest/downsample-series.js'
import { renderBacktestReport } from '../../src/backtest/render-report.js'
import { chartGeometry, fillGroupWidth, maxFillMarkers, plotWidth } from '../../src/backtest/report-charts.js'
import { binSlippage } from '../../src/backtest/report-slippage.js'
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

/** The page without the data its script reads (which holds nulls for pixel columns without a value). */
function withoutScriptData(html: string): string {
  return html.slice(0, html.indexOf('<script type="application/json"'))
}

/** Text without tags, whitespace collapsed. */
function textOf(html: string): string {
  return html
    .replace(/<[^>]+>/g, '')
    .replace(/\s+/g, ' ')
    .trim()
}

/** The `<section>` whose heading is `heading`. */
function sectionOf(html: string, heading: string): string {
  const at = html.indexOf(`<h2>${heading}</h2>`)
  if (at < 0) throw new Error(`no section headed ${heading}`)
  return html.slice(html.lastIndexOf('<section', at), html.indexOf('</section>', at))
}

/** A figures row by its label: the value cell's class and inner HTML, and the note. */
function figureRowOf(html: string, label: string): { className: string; value: string; note: string } {
  const match = new RegExp(`<tr><th scope="row">${label}</th><td class="([^"]*)">(.*?)</td><td class="note">(.*?)</td></tr>`).exec(html)
  if (!match) throw new Error(`no row ${label}`)
  return { className: match[1] as string, value: match[2] as string, note: match[3] as string }
}

/** A result shaped like the DCA run of the fixture: 1,000 USDC in, ETH up 9.49 %, 63.07 USDC behind buy-and-hold. */
function dcaLike(): BacktestResult {
  const result = syntheticBacktestResult({ points: 200, fills: 20 })
  result.summary.startValue = 1000
  result.summary.endValue = 1031.82
  result.summary.pnl = 31.82
  result.summary.benchmarks = {
    buyAndHold: { endValue: 1094.89, return: 0.09489, excess: -63.07 },
    holdStart: { endValue: 1000, return: 0, excess: 31.82 },
  }
  result.summary.metrics.totalReturn = 0.03182
  result.summary.metrics.marketChange = 0.09489
  return result
}

describe('renderBacktestReport', () => {
  it('draws the equity against both benchmarks, the drawdown, the price and the slippage as inline SVG', () => {
    const result = syntheticBacktestResult({ points: 2000, fills: 40 })
    const html = renderBacktestReport(result)

    const equity = chartMarks(html, 'chart-equity')
    // the strategy is drawn last, on top
    expect(equity.lines.map((line) => [line.className, line.commands])).toEqual([
      ['line hold-start dotted', 2000],
      ['line buy-and-hold dashed', 2000],
      ['line equity', 2000],
    ])
    expect(equity.bands).toEqual(['drawdown'])
    const drawdown = chartMarks(html, 'chart-drawdown')
    expect(drawdown.lines.map((line) => [line.className, line.commands])).toEqual([['line drawdown', 2000]])
    expect(drawdown.areas).toEqual(['drawdown'])
    expect(drawdown.bands[0]).toBe('drawdown')
    expect(drawdown.svg).toContain(`maximum -${(result.summary.metrics.maxDrawdown * 100).toFixed(2)} %`)
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
    // the readout covers the three line charts, the drawdown in percent
    const readouts = (JSON.parse(scriptData(html)) as { readouts: { id: string; unit: string; lines: { label: string }[] }[] }).readouts
    expect(readouts.map((chart) => [chart.id, chart.unit, chart.lines.map((line) => line.label)])).toEqual([
      ['chart-equity', 'value', ['Strategy, USDC', 'Buy-and-hold, USDC', 'Starting balances, USDC']],
      ['chart-drawdown', 'percent', ['Drawdown']],
      ['chart-price', 'value', ['Price, USDC per ETH']],
    ])
  })

  it('puts the strategy against buy-and-hold in the headline, with the starting balances and the market beside it', () => {
    const lagging = renderBacktestReport(dcaLike())
    const headline = /<section class="headline (\w+)"[^>]*>([\s\S]*?)<\/section>/.exec(lagging)
    expect(headline?.[1]).toBe('neg')
    const lines = [...(headline?.[2] ?? '').matchAll(/<p class="[a-z]+">([\s\S]*?)<\/p>/g)].map((match) => textOf(match[1] as string))
    expect(lines).toEqual([
      '▼ Lagged buy-and-hold by 63.07 USDC (-5.8 %)',
      'Strategy +3.18 % to 1,031.82 USDC · buy-and-hold +9.49 % to 1,094.89 USDC · ETH price +9.49 % over the period',
      'Against keeping the starting balances (0.00 % to 1,000.00 USDC): beat by 31.82 USDC',
    ])

    const beating = dcaLike()
    beating.summary.benchmarks.buyAndHold = { endValue: 1010, return: 0.01, excess: 21.82 }
    expect(textOf(/<p class="verdict">(.*?)<\/p>/.exec(renderBacktestReport(beating))?.[1] ?? '')).toBe(
      '▲ Beat buy-and-hold by 21.82 USDC (+2.2 %)',
    )
    const matching = dcaLike()
    matching.summary.benchmarks.buyAndHold = { endValue: 1031.82, return: 0.03182, excess: 0.001 }
    expect(textOf(/<p class="verdict">(.*?)<\/p>/.exec(renderBacktestReport(matching))?.[1] ?? '')).toBe('= Matched buy-and-hold')
  })

  it('names the fill model under the title, with what it means', () => {
    const realistic = renderBacktestReport(syntheticBacktestResult({ points: 50, fills: 5, fillModel: 'realistic' }))
    expect(textOf(/<p class="meta fill-model">(.*?)<\/p>/.exec(realistic)?.[1] ?? '')).toMatch(
      /^Fill model realistic Delta auctions settle around the quote by a seeded draw/,
    )
    const ideal = renderBacktestReport(syntheticBacktestResult({ points: 50, fills: 5, fillModel: 'ideal' }))
    expect(textOf(/<p class="meta fill-model">(.*?)<\/p>/.exec(ideal)?.[1] ?? '')).toMatch(
      /^Fill model ideal Fills at fixed figures: .* optimistic bound/,
    )
    expect(ideal).toContain('<dt>Fill model</dt><dd>ideal</dd>')
  })

  it('shows every metric, saying how the ratios were computed', () => {
    const result = syntheticBacktestResult({ points: 3000, fills: 60 })
    const { metrics } = result.summary
    metrics.sharpe = 1.2345
    metrics.sortino = -0.5
    metrics.calmar = 3.456
    metrics.volatility = 0.4321
    metrics.exposure = 0.875
    metrics.returns = { period: 'hour', periodMs: 3_600_000, periodsPerYear: 8760, riskFreeRate: 0.04, count: 719 }
    metrics.maxDrawdown = 0.0512
    metrics.maxDrawdownWindow = { from: Date.UTC(2024, 2, 5, 6), to: Date.UTC(2024, 2, 9, 12), recoveredAt: Date.UTC(2024, 2, 12) }
    metrics.maxDrawdownDurationMs = 9 * 86_400_000
    const html = sectionOf(renderBacktestReport(result), 'Metrics')

    expect(textOf(html)).toContain('Ratios from 719 hourly returns, 8,760 periods a year, risk-free rate 4.00 % a year.')
    expect(figureRowOf(html, 'Sharpe ratio').value).toBe('1.23')
    expect(figureRowOf(html, 'Sharpe ratio').note).toContain('719 hourly returns, 8,760 periods a year, risk-free rate 4.00 % a year')
    expect(figureRowOf(html, 'Sortino ratio').value).toBe('-0.50')
    expect(figureRowOf(html, 'Calmar ratio').value).toBe('3.46')
    expect(figureRowOf(html, 'Volatility').value).toBe('43.21 %')
    expect(figureRowOf(html, 'Maximum drawdown')).toEqual({
      className: 'num neg',
      value: '-5.12 %',
      note: 'peak 2024-03-05 06:00, trough 2024-03-09 12:00 UTC',
    })
    expect(figureRowOf(html, 'Recovery')).toMatchObject({ value: '6 d 18 h', note: 'from the peak, back at it 2024-03-12 00:00 UTC' })
    expect(figureRowOf(html, 'Longest drawdown').value).toBe('9 d')
    expect(figureRowOf(html, 'Exposure').value).toBe('87.5 %')
    expect(figureRowOf(html, 'Total return').value).toBe(
      `${metrics.totalReturn >= 0 ? '+' : ''}${(metrics.totalReturn * 100).toFixed(2)} %`,
    )
    expect(figureRowOf(html, 'Market change').value).toMatch(/^[+-]\d+\.\d\d %$/)
    expect(figureRowOf(html, 'CAGR').note).toBe('compounded over a year from 30 d: an extrapolation, read with care')
    expect(figureRowOf(html, 'Buy-and-hold').note).toMatch(
      /^the start value in ETH at the first price: ends at [\d,]+\.\d\d USDC; the strategy (beat|lagged) it by /,
    )
    expect(figureRowOf(html, 'Fees / volume').value).toMatch(/^0\.\d{3} %$/)
    expect(figureRowOf(html, 'Fees / volume').note).toMatch(/^18\.00 USDC of [\d,]+\.\d\d USDC traded$/)
    const trips = result.summary.metrics.roundTrips
    expect(trips).not.toBeNull()
    expect(figureRowOf(html, 'Round trips')).toMatchObject({
      value: String(trips?.trades),
      note: `${trips?.wins} won, ${trips?.losses} lost`,
    })
    expect(figureRowOf(html, 'Win rate').value).toBe(`${((trips?.winRate ?? 0) * 100).toFixed(1)} %`)
    expect(figureRowOf(html, 'Expectancy').note).toBe('USDC per round trip')
  })

  it('shows a figure the run could not give as a dash that says why', () => {
    const result = syntheticBacktestResult({ points: 50, fills: 2 })
    const { metrics } = result.summary
    Object.assign(metrics, { cagr: null, volatility: null, sharpe: null, sortino: null, calmar: null, marketChange: null })
    Object.assign(metrics, { maxDrawdown: 0, maxDrawdownWindow: null, maxDrawdownDurationMs: 0 })
    metrics.returns.count = 1
    const html = renderBacktestReport(result)
    const metricsSection = sectionOf(html, 'Metrics')
    const dash = (why: string) => `<span class="na" title="${why}">–</span>`
    expect(figureRowOf(metricsSection, 'Sharpe ratio').value).toBe(dash('Only 1 daily return: at least 2 are needed.'))
    expect(figureRowOf(metricsSection, 'Volatility').value).toBe(dash('Only 1 daily return: at least 2 are needed.'))
    // a 30-day run whose CAGR is null anyway: only an overflow is left to explain it
    expect(figureRowOf(metricsSection, 'CAGR').value).toBe(dash('Too large to compute (it overflows).'))
    const twoDays = syntheticBacktestResult({ points: 50, fills: 2, days: 2 })
    expect(twoDays.summary.metrics.cagr).toBeNull()
    expect(figureRowOf(renderBacktestReport(twoDays), 'CAGR').value).toBe(
      dash('The run lasts 2 d, under 30 d: raised to a year, its return would say little.'),
    )
    expect(figureRowOf(renderBacktestReport(twoDays), 'Calmar ratio').value).toBe(dash('No CAGR for this run (see CAGR).'))
    expect(figureRowOf(metricsSection, 'Calmar ratio').value).toBe(dash('No drawdown: the ratio divides by it.'))
    expect(figureRowOf(metricsSection, 'Market change').value).toBe(dash('No price at the start or at the end of the run.'))
    expect(figureRowOf(metricsSection, 'Maximum drawdown').value).toBe(dash('Equity never fell below a previous peak.'))
    // one buy and one sell close one round trip, which may well have won: no losing trip, no profit factor
    metrics.roundTrips = { trades: 1, wins: 1, losses: 0, winRate: 1, averageWin: 2.5, averageLoss: 0, profitFactor: null, expectancy: 2.5 }
    const oneWin = sectionOf(renderBacktestReport(result), 'Metrics')
    expect(figureRowOf(oneWin, 'Profit factor').value).toBe(dash('No losing round trip, so gross profit has nothing to be divided by.'))
    expect(figureRowOf(oneWin, 'Average loss').value).toBe(dash('No losing round trip.'))
    expect(figureRowOf(oneWin, 'Average win').value).toBe('2.50')

    metrics.roundTrips = null
    const noTrips = renderBacktestReport(result)
    const why = 'No closed round trip: a strategy that only buys (or only sells) never closes one.'
    expect(figureRowOf(sectionOf(noTrips, 'Metrics'), 'Round trips').value).toBe(dash(why))
    expect(withoutScriptData(noTrips)).not.toMatch(/NaN|Infinity|undefined|null/)
    // the strategy's own round trips: said in words across the columns
    if (result.strategies[0]) result.strategies[0].roundTrips = null
    const strategies = sectionOf(renderBacktestReport(result), 'Strategies')
    expect(strategies).toContain(`<tr><th scope="row">grid-eth</th><td colspan="6" class="note">${why}</td></tr>`)
  })

  it("shows each strategy's round trips in the strategies table", () => {
    const result = syntheticBacktestResult({ points: 300, fills: 30 })
    const trips = {
      trades: 7,
      wins: 4,
      losses: 3,
      winRate: 4 / 7,
      averageWin: 12.5,
      averageLoss: 4.25,
      profitFactor: 3.92,
      expectancy: 5.32,
    }
    if (result.strategies[0]) result.strategies[0].roundTrips = trips
    const html = renderBacktestReport(result)
    const table = html.slice(html.indexOf('<table class="figures round-trips">'), html.indexOf('</table>', html.indexOf('round-trips')))
    const cells = [...table.matchAll(/<td class="num[^"]*">([^<]*)<\/td>/g)].map((match) => match[1])
    expect(cells).toEqual(['7', '57.1 %', '12.50', '4.25', '3.92', '+5.32'])
    // one strategy: no "all strategies" row repeating it
    expect(table).not.toContain('All strategies')
    const two = syntheticBacktestResult({ points: 300, fills: 30 })
    two.strategies.push({ ...(two.strategies[0] as (typeof two.strategies)[number]), name: 'second', roundTrips: null })
    expect(sectionOf(renderBacktestReport(two), 'Strategies')).toMatch(
      /<tfoot><tr><th scope="row">All strategies<\/th><td class="num">\d+<\/td>/,
    )
  })

  it('lists every day in a table that scrolls, however long the run', () => {
    const result = syntheticBacktestResult({ points: 4000, fills: 300, days: 400 })
    // 400 whole days and the first instant of the next, where the last point falls
    expect(result.daily).toHaveLength(401)
    const html = renderBacktestReport(result)
    const table = sectionOf(html, 'Day by day')
    expect(table).toContain('<div class="scroll days" tabindex="0" role="region" aria-label="Day by day">')
    const rows = [...table.matchAll(/<tr><th scope="row">(\d{4}-\d\d-\d\d)<\/th>((?:<td[^>]*>[^<]*<\/td>)+)<\/tr>/g)]
    expect(rows.map((row) => row[1])).toEqual(result.daily.map((day) => day.day))
    const first = result.daily[0]
    const cells = [...(rows[0]?.[2] ?? '').matchAll(/<td[^>]*>([^<]*)<\/td>/g)].map((match) => match[1])
    expect(cells).toEqual([
      first?.startValue.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 }),
      first?.endValue.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 }),
      `${(first?.return ?? 0) > 0 ? '+' : ''}${((first?.return ?? 0) * 100).toFixed(2)} %`,
      String(first?.trades),
      (first?.fees ?? 0).toFixed(2),
      (first?.gas ?? 0).toFixed(2),
    ])
    expect(textOf(table)).toContain(`All 401 days`)
    expect(textOf(table)).toContain(`${sum(result.daily.map((day) => day.trades))}`)
    expect(sum(result.daily.map((day) => day.trades))).toBe(300)
  })

  it('colours an all-zero slippage histogram neutral, not worse than planned', () => {
    const result = syntheticBacktestResult({ points: 300, fills: 144 })
    for (const fill of result.fills) {
      fill.slippageBps = 0
      fill.price = fill.plannedPrice ?? fill.price
    }
    result.summary.slippageBps = { mean: 0, p50: 0, p95: 0 }
    const bars = chartMarks(renderBacktestReport(result), 'chart-slippage').bars
    expect(bars).toEqual([{ count: 144, kind: 'neutral' }])
  })

  it('colours bars below zero better, above zero worse and the bin around zero neutral', () => {
    const bars = binSlippage([-7, -3.2, -0.1, 0, 0, 0.2, 4, 4.5, 12])
    const kinds = (predicate: (bar: (typeof bars)[number]) => boolean) => bars.filter((bar) => bar.count > 0 && predicate(bar))
    expect(kinds((bar) => bar.to <= 0).every((bar) => bar.kind === 'better')).toBe(true)
    expect(kinds((bar) => bar.from >= 0).every((bar) => bar.kind === 'worse')).toBe(true)
    expect(bars.filter((bar) => bar.kind === 'neutral')).toHaveLength(1)
    // bins 1 bps wide: -0.1, 0, 0 and 0.2 went as planned
    expect(bars.find((bar) => bar.kind === 'neutral')).toMatchObject({ from: -0.5, to: 0.5, count: 4 })
    expect(bars.find((bar) => bar.kind === 'neutral')?.title).toBe('4 fills from -0.5 to +0.5 bps (around zero: as planned)')
    expect(binSlippage([-0.3, 0, 0.1, 0.4]).find((bar) => bar.kind === 'neutral')?.title).toBe(
      '1 fill from -0.025 to +0.025 bps (around zero: as planned)',
    )
  })

  it('puts every slippage into a bar of its own sign, or the one around zero (property)', () => {
    const bps = fc.oneof(fc.constant(0), fc.double({ min: -500, max: 500, noNaN: true }), fc.integer({ min: -20, max: 20 }))
    fc.assert(
      fc.property(fc.array(bps, { minLength: 1, maxLength: 300 }), (values) => {
        const bars = binSlippage(values)
        expect(sum(bars.map((bar) => bar.count))).toBe(values.length)
        expect(bars.filter((bar) => bar.kind === 'neutral')).toHaveLength(1)
        for (const bar of bars) {
          if (bar.kind === 'better') expect(bar.to).toBeLessThanOrEqual(1e-9)
          if (bar.kind === 'worse') expect(bar.from).toBeGreaterThanOrEqual(-1e-9)
          if (bar.kind === 'neutral') expect(bar.from).toBeCloseTo(-bar.to, 9)
        }
        // values go to bars in sorted order, so a bar kind counting no more values than there are of its sign
        // holds only values of that sign (and zero lands in the neutral bar)
        const counted = (kind: string) => sum(bars.filter((bar) => bar.kind === kind).map((bar) => bar.count))
        expect(counted('better')).toBeLessThanOrEqual(values.filter((value) => value < 0).length)
        expect(counted('worse')).toBeLessThanOrEqual(values.filter((value) => value > 0).length)
      }),
    )
  })

  it('shows the planned price of the worst fills', () => {
    const result = syntheticBacktestResult({ points: 300, fills: 12 })
    const worst = [...result.fills].sort((a, b) => b.slippageBps - a.slippageBps)[0]
    if (worst) worst.plannedPrice = 2999.5
    const table = sectionOf(renderBacktestReport(result), 'Worst fills by slippage')
    expect(table).toContain('<th scope="col" class="num">Planned, USDC</th>')
    expect(table).toMatch(
      /<tbody>\n<tr><td class="time">[^<]+<\/td><td>grid-eth<\/td><td class="(buy|sell)">(BUY|SELL)<\/td><td class="num">2,999.50<\/td>/,
    )
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
    for (const id of ['chart-equity', 'chart-drawdown', 'chart-price']) {
      for (const line of chartMarks(html, id).lines) {
        expect(line.commands).toBeGreaterThan(plotWidth)
        expect(line.commands).toBeLessThanOrEqual(4 * plotWidth)
      }
    }
    expect(html).toContain('Drawn from 1,000,000 points')
    // the hover readout gets one value per pixel column, not the series
    expect(scriptData(html).length).toBeLessThan(60_000)
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
    ['version', (result) => ((result as unknown as { version: number }).version = 1)],
    ['summary.metrics.exposure', (result) => (result.summary.metrics.exposure = 1.2)],
    ['summary.benchmarks.buyAndHold.excess', (result) => (result.summary.benchmarks.buyAndHold.excess = Number.NaN)],
    ['daily.0.day', (result) => ((result.daily[0] as { day: string }).day = '1 March')],
    ['fills.0.plannedPrice', (result) => ((result.fills[0] as { plannedPrice: number }).plannedPrice = -1)],
    ['series.drawdown.1.1', (result) => ((result.series.drawdown[1] as SeriesPoint)[1] = Number.NaN)],
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
    result.strategies = [{ name: 'idle', orders: {}, fills: 0, bought: 0, sold: 0, fees: 0, gas: 0, pnl: 0, errors: 0, roundTrips: null }]
    expect(result.summary.executionPrice).toBeNull()
    expect(result.summary.slippageBps).toBeNull()
    const html = renderBacktestReport(result)
    expect(chartMarks(html, 'chart-price').markers).toEqual([])
    expect(chartMarks(html, 'chart-price').lines).toHaveLength(1)
    expect(chartMarks(html, 'chart-slippage').bars).toEqual([])
    expect(chartMarks(html, 'chart-slippage').svg).toContain('No fills, so no slippage to show.')
    expect(html).toContain('No fills: the result is the same as keeping the starting balances')
    expect(figureRowOf(sectionOf(html, 'Metrics'), 'Fees / volume').value).toBe(
      '<span class="na" title="No trades, so no volume.">–</span>',
    )
    expect(withoutScriptData(html)).not.toMatch(/NaN|Infinity|undefined|null/)
  })

  it('renders a crosschain stable rebalancer whose base holdings stay 0', () => {
    const from = Date.UTC(2024, 0, 1)
    const flat = (value: number): SeriesPoint[] => Array.from({ length: 100 }, (_, index): SeriesPoint => [from + index * 60_000, value])
    const result = parseBacktestResult({
      ...syntheticBacktestResult({ points: 10, fills: 0 }),
      from,
      to: from + 99 * 60_000,
      pair: { base: 'USDC.e', quote: 'USDC' },
      series: { equity: flat(10_000), buyAndHold: flat(10_000), holdStart: flat(10_000), price: flat(1), drawdown: flat(0) },
      daily: [{ day: '2024-01-01', startValue: 10_000, endValue: 9997.9, return: -0.00021, trades: 0, fees: 1.2, gas: 0.9 }],
      fills: [],
      strategies: [
        {
          name: 'stable-rebalancer',
          orders: { COMPLETED: 3 },
          fills: 3,
          bought: 0,
          sold: 0,
          fees: 1.2,
          gas: 0.9,
          pnl: -2.1,
          errors: 0,
          roundTrips: null,
        },
      ],
    })
    result.summary = {
      ...result.summary,
      startValue: 10_000,
      endValue: 9997.9,
      pnl: -2.1,
      benchmarks: {
        buyAndHold: { endValue: 10_000, return: 0, excess: -2.1 },
        holdStart: { endValue: 10_000, return: 0, excess: -2.1 },
      },
      executionPrice: null,
      averagePrice: 1,
      slippageBps: null,
      trades: 0,
      fillRate: 1,
      ordersByStatus: { COMPLETED: 3 },
      startHoldings: { base: 0, quote: 10_000 },
      endHoldings: { base: 0, quote: 9997.9 },
    }
    result.summary.metrics = {
      ...result.summary.metrics,
      totalReturn: -0.00021,
      marketChange: 0,
      maxDrawdown: 0,
      maxDrawdownWindow: null,
      maxDrawdownDurationMs: 0,
      exposure: 0,
      roundTrips: null,
    }
    const html = renderBacktestReport(result)
    expect(chartMarks(html, 'chart-equity').lines.map((line) => line.commands)).toEqual([100, 100, 100])
    expect(chartMarks(html, 'chart-drawdown').lines.map((line) => line.commands)).toEqual([100])
    expect(chartMarks(html, 'chart-drawdown').bands).toEqual([])
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
    expect(chartMarks(html, 'chart-drawdown').svg).toContain('No drawdown series in this result.')
    expect(html).not.toContain('Day by day')
    expect(html).toContain('The result has no equity series')
    expect(JSON.parse(scriptData(html))).toEqual({ readouts: [] })
  })

  it('accepts a drawdown of more than 100 % (equity below zero), not recovered by the end', () => {
    const result = syntheticBacktestResult({ points: 50, fills: 5 })
    result.summary.metrics.maxDrawdown = 1.4
    result.summary.metrics.maxDrawdownWindow = { from: result.from + 86_400_000, to: result.from + 5 * 86_400_000, recoveredAt: null }
    const html = renderBacktestReport(result)
    expect(figureRowOf(html, 'Maximum drawdown').value).toBe('-140.00 %')
    expect(figureRowOf(html, 'Recovery')).toMatchObject({
      value: 'not recovered',
      note: 'still below the 2024-03-02 00:00 peak at the end',
    })
    const drawdown = chartMarks(html, 'chart-drawdown')
    expect(drawdown.bands).toEqual(['drawdown', 'recovery'])
    expect(drawdown.svg).toContain('maximum -140.00 %')
    expect(drawdown.svg).toContain('Not recovered by the end')
  })

  it('adds the ranked table of a sweep, one row per combination', () => {
    const result = syntheticBacktestResult({ points: 50, fills: 5 })
    const sweep: SweepRow[] = [5, 20, -3].map((excess, index) => ({
      parameters: { slices: index + 2 },
      summary: {
        ...result.summary,
        benchmarks: { ...result.summary.benchmarks, buyAndHold: { ...result.summary.benchmarks.buyAndHold, excess } },
      },
    }))
    const html = renderBacktestReport(result, { sweep })
    const section = html.slice(html.indexOf('<section class="sweep">'), html.indexOf('</section>', html.indexOf('<section class="sweep">')))
    expect(section.match(/<tr( class="best")?><td class="num">\d<\/td>/g)).toHaveLength(3)
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
