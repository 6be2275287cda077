import { readFileSync, writeFileSync } from 'node:fs'
import { afterAll, describe, expect, it } from 'vitest'
import type { BacktestResult } from '../../src/backtest/backtest-result.js'
import { renderBacktestReport } from '../../src/backtest/render-report.js'
import { chartGeometry, plotWidth } from '../../src/backtest/report-charts.js'
import { chartMarks, dumpDom, findChromium } from '../helpers/chromium.js'
import { createTempDirectory } from '../helpers/temp-directory.js'
import { syntheticBacktestResult } from './synthetic-backtest-result.js'

// The written report loaded in a real browser: the charts are in the live DOM as drawn SVG, the script ran without
// errors, and the page asked for nothing (a blocked request would show as a CSP violation on the console). Fails, not
// skips, without Chromium: CI installs it (.ci/run).

const directory = createTempDirectory('deltaflow-report-')
afterAll(() => directory.cleanup())

function writeReport(result: BacktestResult): string {
  const file = directory.path('report.html')
  writeFileSync(file, renderBacktestReport(result))
  return file
}

const hostile = `<img src=x onerror="document.title='pwned'"><script>document.title='pwned'</script>`
const result = syntheticBacktestResult({ points: 5000, fills: 40, strategyName: hostile, warnings: [hostile] })
const buys = result.fills.filter((fill) => fill.side === 'BUY').length

describe('backtest report in headless Chromium', () => {
  it('finds Chromium (install it with apt-get install -y chromium, or set CHROMIUM_PATH)', () => {
    expect(findChromium()).toMatch(/chrom/i)
  })

  it('shows the charts drawn, with the hover readout added by a script that ran without errors', { timeout: 30_000 }, async () => {
    const page = await dumpDom(writeReport(result))
    expect(page.console).toEqual([])
    expect(page.survivors).toEqual([])
    expect(page.dom).toMatch(/<html [^>]*data-report-script="ready"/)
    expect(page.dom).toMatch(/<html [^>]*data-readouts="2"/)

    const equity = chartMarks(page.dom, 'chart-equity')
    expect(equity.lines.map((line) => line.className)).toEqual(['line hold dashed', 'line equity'])
    for (const line of equity.lines) expect(line.commands).toBeGreaterThan(100)
    expect(equity.readout).toBe(true)

    const price = chartMarks(page.dom, 'chart-price')
    expect(price.lines).toHaveLength(1)
    expect(price.lines[0]?.d).toMatch(/^M[\d.]+ [\d.]+L/)
    expect(price.markers).toHaveLength(40)
    expect(price.markers.filter((marker) => marker.side === 'buy')).toHaveLength(buys)
    expect(price.readout).toBe(true)

    const slippage = chartMarks(page.dom, 'chart-slippage')
    expect(slippage.bars.reduce((total, bar) => total + bar.count, 0)).toBe(40)
    expect(slippage.readout).toBe(false)

    // the hostile strategy name stayed text
    expect(page.dom).not.toContain('<img')
    expect(page.dom).not.toContain('pwned</title>')
  })

  it('shows the values under the pointer when the mouse moves over a line chart', { timeout: 30_000 }, async () => {
    const file = writeReport(result)
    // a pointer over the middle of the equity chart's plot (the middle of its 30 days), after the report's own script
    const middle = (chartGeometry.left + plotWidth / 2) / chartGeometry.width
    const pointer = `<script>(function () {
      var svg = document.getElementById('chart-equity'), box = svg.getBoundingClientRect();
      svg.dispatchEvent(new MouseEvent('mousemove', { clientX: box.left + box.width * ${middle}, clientY: box.top + box.height / 2, bubbles: true }));
    })();</script>`
    writeFileSync(file, readFileSync(file, 'utf8').replace('</body>', `${pointer}\n</body>`))
    const page = await dumpDom(file)
    expect(page.console).toEqual([])
    const readout = /<g class="readout" visibility="([a-z]+)">(.*?)<\/g>/.exec(chartMarks(page.dom, 'chart-equity').svg ?? '')
    expect(readout?.[1]).toBe('visible')
    const texts = [...(readout?.[2] ?? '').matchAll(/<text [^>]*>([^<]*)<\/text>/g)].map((match) => match[1])
    expect(texts[0]).toMatch(/^2024-03-(15 2[2-3]|16 0[0-1]):\d\d UTC$/)
    expect(texts.slice(1)).toEqual([
      expect.stringMatching(/^Holding, USDC: [\d,]+\.\d\d$/),
      expect.stringMatching(/^Strategy, USDC: [\d,]+\.\d\d$/),
    ])
  })

  // --dump-dom itself needs JavaScript, so "scripts off" is the page without its script: what the parser builds
  it('shows the same charts when its script does not run', { timeout: 30_000 }, async () => {
    const file = writeReport(result)
    const html = readFileSync(file, 'utf8')
    const script = html.lastIndexOf('<script>')
    writeFileSync(file, html.slice(0, script) + html.slice(html.indexOf('</script>', script) + '</script>'.length))
    const page = await dumpDom(file)
    expect(page.console).toEqual([])
    expect(page.dom).not.toContain('data-report-script=')
    expect(chartMarks(page.dom, 'chart-equity').lines).toHaveLength(2)
    expect(chartMarks(page.dom, 'chart-price').markers).toHaveLength(40)
    expect(chartMarks(page.dom, 'chart-slippage').bars.length).toBeGreaterThan(1)
    expect(chartMarks(page.dom, 'chart-equity').readout).toBe(false)
  })
})
