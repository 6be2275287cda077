import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import type { BacktestResult } from '../../src/backtest/backtest-result.js'
import { renderBacktestReport } from '../../src/backtest/render-report.js'
import { chartGeometry, plotWidth } from '../../src/backtest/report-charts.js'
import { chartMarks, dumpDom, findChromium, screenshotPage } from '../helpers/chromium.js'
import { createTempDirectory } from '../helpers/temp-directory.js'
import { syntheticBacktestResult } from './synthetic-backtest-result.js'

// The written report loaded in a real browser: the charts are in the live DOM as drawn SVG, the script ran without
// errors, the histogram's colours follow the sign, the day-by-day table scrolls in its own box, and the page asked for
// nothing (a blocked request would show as a CSP violation on the console). A screenshot of the whole page is kept
// under .cache/test-artifacts/ (gitignored) for a person to look at. Fails, not skips, without Chromium: CI installs it
// (.ci/run).

const directory = createTempDirectory('deltaflow-report-')
afterAll(() => directory.cleanup())
const artifacts = fileURLToPath(new URL('../../.cache/test-artifacts/', import.meta.url))

/** The report, with `extra` (a script run after the report's own) before `</body>`. */
function writeReport(result: BacktestResult, extra = ''): string {
  const file = directory.path('report.html')
  writeFileSync(file, renderBacktestReport(result).replace('</body>', `${extra}\n</body>`))
  return file
}

/** A script that moves the pointer to `fraction` of the width of chart `id`'s plot. */
function pointerOver(id: string, fraction: number): string {
  const x = (chartGeometry.left + plotWidth * fraction) / chartGeometry.width
  return `<script>(function () {
    var svg = document.getElementById('${id}'), box = svg.getBoundingClientRect();
    svg.dispatchEvent(new MouseEvent('mousemove', { clientX: box.left + box.width * ${x}, clientY: box.top + box.height / 2, bubbles: true }));
  })();</script>`
}

/** The texts of chart `id`'s hover readout, and whether it shows. */
function readoutOf(dom: string, id: string): { visibility: string | undefined; texts: string[] } {
  const readout = /<g class="readout" visibility="([a-z]+)">(.*?)<\/g>/.exec(chartMarks(dom, id).svg ?? '')
  return {
    visibility: readout?.[1],
    texts: [...(readout?.[2] ?? '').matchAll(/<text [^>]*>([^<]*)<\/text>/g)].map((match) => match[1] as string),
  }
}

// what the layout gives, written onto <html> for the test to read: colours as computed, the day table's box, the page
const measure = `<script>(function () {
  var root = document.documentElement;
  var fills = {};
  document.querySelectorAll('#chart-slippage rect.bar').forEach(function (bar) {
    fills[bar.getAttribute('class').replace('bar ', '')] = getComputedStyle(bar).fill;
  });
  var swatches = {};
  ['better', 'worse', 'neutral'].forEach(function (kind) {
    swatches[kind] = getComputedStyle(document.querySelector('.swatch-' + kind)).backgroundColor;
  });
  var days = document.querySelector('.scroll.days');
  root.setAttribute('data-measured', JSON.stringify({
    fills: fills, swatches: swatches,
    days: { client: days.clientHeight, scroll: days.scrollHeight, rows: days.querySelectorAll('tbody tr').length },
    page: { width: root.scrollWidth, height: root.scrollHeight }
  }));
})();</script>`

type Measured = {
  fills: Record<string, string>
  swatches: Record<string, string>
  days: { client: number; scroll: number; rows: number }
  page: { width: number; height: number }
}

function measuredOf(dom: string): Measured {
  const attribute = /<html [^>]*data-measured="([^"]*)"/.exec(dom)?.[1] ?? 'null'
  return JSON.parse(attribute.replace(/&quot;/g, '"').replace(/&amp;/g, '&')) as Measured
}

const hostile = `<img src=x onerror="document.title='pwned'"><script>document.title='pwned'</script>`
const result = syntheticBacktestResult({ points: 5000, fills: 40, strategyName: hostile, warnings: [hostile] })
const buys = result.fills.filter((fill) => fill.side === 'BUY').length
const windowSize = { width: 1100, height: 900 }

describe('backtest report in headless Chromium', () => {
  it('finds Chromium (install it with apt-get install -y chromium, or set CHROMIUM_PATH)', () => {
    expect(findChromium()).toMatch(/chrom/i)
  })

  let pageHeight = 0

  it('shows the charts and tables drawn, with the hover readout added by a script that ran without errors', {
    timeout: 30_000,
  }, async () => {
    const page = await dumpDom(writeReport(result, measure), { windowSize })
    expect(page.console).toEqual([])
    expect(page.survivors).toEqual([])
    expect(page.dom).toMatch(/<html [^>]*data-report-script="ready"/)
    expect(page.dom).toMatch(/<html [^>]*data-readouts="3"/)

    const equity = chartMarks(page.dom, 'chart-equity')
    expect(equity.lines.map((line) => line.className)).toEqual(['line hold-start dotted', 'line buy-and-hold dashed', 'line equity'])
    for (const line of equity.lines) expect(line.commands).toBeGreaterThan(100)
    expect(equity.readout).toBe(true)

    const drawdown = chartMarks(page.dom, 'chart-drawdown')
    expect(drawdown.lines.map((line) => line.className)).toEqual(['line drawdown'])
    expect(drawdown.areas).toEqual(['drawdown'])
    expect(drawdown.bands[0]).toBe('drawdown')
    expect(drawdown.readout).toBe(true)

    const price = chartMarks(page.dom, 'chart-price')
    expect(price.lines).toHaveLength(1)
    expect(price.lines[0]?.d).toMatch(/^M[\d.]+ [\d.]+L/)
    expect(price.markers).toHaveLength(40)
    expect(price.markers.filter((marker) => marker.side === 'buy')).toHaveLength(buys)
    expect(price.readout).toBe(true)

    const slippage = chartMarks(page.dom, 'chart-slippage')
    expect(slippage.bars.reduce((total, bar) => total + bar.count, 0)).toBe(40)
    expect(new Set(slippage.bars.map((bar) => bar.kind))).toEqual(new Set(['better', 'neutral', 'worse']))
    expect(slippage.readout).toBe(false)

    const measured = measuredOf(page.dom)
    // each kind of bar painted as its legend says, and the three told apart
    expect(measured.fills).toEqual(measured.swatches)
    expect(new Set(Object.values(measured.fills)).size).toBe(3)
    // every day is a row; the table scrolls inside its box instead of stretching the page
    expect(measured.days.rows).toBe(result.daily.length)
    expect(measured.days.scroll).toBeGreaterThan(measured.days.client)
    expect(measured.days.client).toBeLessThan(500)
    // nothing wider than the window
    expect(measured.page.width).toBeLessThanOrEqual(windowSize.width)
    pageHeight = measured.page.height

    expect(page.dom).toContain('<h2>Metrics</h2>')
    // the hostile strategy name stayed text
    expect(page.dom).not.toContain('<img')
    expect(page.dom).not.toContain('pwned</title>')
  })

  it('shows the values under the pointer on the equity and drawdown charts', { timeout: 30_000 }, async () => {
    const page = await dumpDom(writeReport(result, pointerOver('chart-equity', 0.5) + pointerOver('chart-drawdown', 0.5)), { windowSize })
    expect(page.console).toEqual([])
    const equity = readoutOf(page.dom, 'chart-equity')
    expect(equity.visibility).toBe('visible')
    // the middle of the 30 days
    expect(equity.texts[0]).toMatch(/^2024-03-(15 2[2-3]|16 0[0-1]):\d\d UTC$/)
    expect(equity.texts.slice(1)).toEqual([
      expect.stringMatching(/^Strategy, USDC: [\d,]+\.\d\d$/),
      expect.stringMatching(/^Buy-and-hold, USDC: [\d,]+\.\d\d$/),
      expect.stringMatching(/^Starting balances, USDC: [\d,]+\.\d\d$/),
    ])
    const drawdown = readoutOf(page.dom, 'chart-drawdown')
    expect(drawdown.visibility).toBe('visible')
    expect(drawdown.texts.slice(1)).toEqual([expect.stringMatching(/^Drawdown: (-\d+\.\d\d|0\.00) %$/)])
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
    expect(chartMarks(page.dom, 'chart-equity').lines).toHaveLength(3)
    expect(chartMarks(page.dom, 'chart-drawdown').lines).toHaveLength(1)
    expect(chartMarks(page.dom, 'chart-price').markers).toHaveLength(40)
    expect(chartMarks(page.dom, 'chart-slippage').bars.length).toBeGreaterThan(1)
    expect(chartMarks(page.dom, 'chart-equity').readout).toBe(false)
  })

  it('takes a screenshot of the whole page (.cache/test-artifacts/backtest-report.png)', { timeout: 30_000 }, async () => {
    // the page's height at this width, as the test above measured it (or measured here when it ran alone)
    const height = pageHeight || measuredOf((await dumpDom(writeReport(result, measure), { windowSize })).dom).page.height
    expect(height).toBeGreaterThan(windowSize.height)
    mkdirSync(artifacts, { recursive: true })
    const png = `${artifacts}backtest-report.png`
    const shot = await screenshotPage(writeReport(result), png, { windowSize: { width: windowSize.width, height } })
    expect(shot.console).toEqual([])
    expect(shot.survivors).toEqual([])
    const bytes = readFileSync(png)
    expect(bytes.subarray(1, 4).toString('latin1')).toBe('PNG')
    // IHDR: width and height, big-endian, at bytes 16 and 20
    expect([bytes.readUInt32BE(16), bytes.readUInt32BE(20)]).toEqual([windowSize.width, height])
  })
})
