import { execFile } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { parse } from 'csv-parse/sync'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type BacktestResult, parseBacktestResult } from '../../src/backtest/backtest-result.js'
import { tradeColumns } from '../../src/backtest/trades-export.js'
import { chartMarks, dumpDom } from '../helpers/chromium.js'
import { createTempDirectory } from '../helpers/temp-directory.js'

const root = fileURLToPath(new URL('../..', import.meta.url))
const run = promisify(execFile)
const directory = createTempDirectory('deltaflow-backtest-cli-')
afterAll(() => directory.cleanup())
const recording = 'test/fixtures/quotes/ethusdt-strategies.jsonl.gz'
let store: string

/** The real CLI as a process; resolves with its exit code instead of rejecting on a failure. */
async function deltaflow(args: string[]): Promise<{ stdout: string; stderr: string; code: number }> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['bin/deltaflow.js', ...args], { cwd: root, maxBuffer: 64 * 2 ** 20 })
    return { stdout, stderr, code: 0 }
  } catch (error) {
    const failed = error as { stdout: string; stderr: string; code: number }
    return { stdout: failed.stdout, stderr: failed.stderr, code: failed.code }
  }
}

beforeAll(async () => {
  store = directory.path('strategies.sqlite')
  const packed = await deltaflow(['quotes', 'pack', recording, '--out', store, '--json'])
  expect(packed.code, packed.stderr).toBe(0)
  expect(JSON.parse(packed.stdout)).toMatchObject({ quotes: 41_472 })
}, 60_000)

// The ladder's example grid (2,100–2,300) lies above these two days but for one level; the backtest moves it down.
const builtIns: [string, string[]][] = [
  ['dca', []],
  ['ladder', ['--set', 'strategies.0.config.lowerPrice=1900', '--set', 'strategies.0.config.upperPrice=2100']],
  ['rebalancer', []],
  ['otc-poster', []],
]

describe.concurrent('deltaflow backtest: the built-in strategies on the ETH/USDT quote set', () => {
  for (const [name, extra] of builtIns) {
    it(`backtests config/${name}.yaml to a JSON summary, a full result and an HTML report`, async () => {
      const out = directory.path(`${name}.json`)
      const report = directory.path(`${name}.html`)
      const trades = directory.path(`${name}-trades.csv`)
      const { stdout, stderr, code } = await deltaflow([
        'backtest',
        `config/${name}.yaml`,
        '--quotes',
        store,
        '--json',
        '--out',
        out,
        '--report',
        report,
        '--trades',
        trades,
        ...extra,
      ])
      expect(code, stderr).toBe(0)
      const summary = JSON.parse(stdout)
      const result = parseBacktestResult(JSON.parse(readFileSync(out, 'utf8')), out)
      expect(summary.tradesHash).toBe(result.tradesHash)
      expect(summary.summary).toEqual(result.summary)
      expect(result.strategies.map((strategy) => strategy.name)).toHaveLength(1)
      expect(Object.values(result.summary.ordersByStatus).reduce((sum, count) => sum + count, 0)).toBeGreaterThan(0)
      expect(result.strategies[0]?.fills).toBeGreaterThan(0)
      expect(result.series.equity.length).toBeGreaterThan(100)
      // every fill is a row; a fill outside the pair (the rebalancer's USDC crossing chains) without the pair's columns
      const rows: Record<string, string>[] = parse(readFileSync(trades, 'utf8'), { columns: true })
      expect(rows).toHaveLength(result.strategies[0]?.fills ?? -1)
      const pairRows = rows.filter((row) => row.side !== '')
      expect(pairRows.map((row) => row.orderId)).toEqual(result.fills.map((fill) => fill.orderId))
      for (const row of rows.filter((item) => item.side === '')) {
        expect(row).toMatchObject({ baseAmount: '', quoteAmount: '', price: '', plannedPrice: '', slippageBps: '' })
        expect(Number(row.spentAmount)).toBeGreaterThan(0)
      }
      if (name === 'rebalancer') expect(rows.length).toBeGreaterThan(pairRows.length)
      const html = readFileSync(report, 'utf8')
      expect(chartMarks(html, 'chart-equity').lines.length).toBeGreaterThan(0)
      expect(chartMarks(html, 'chart-price').lines.length).toBeGreaterThan(0)
      if (name !== 'dca') return
      // The DCA example to its end: every order completed, the whole budget spent, and a report Chromium draws.
      expect(result.summary.ordersByStatus).toEqual({ COMPLETED: 24 })
      expect(result.summary.startHoldings.quote - result.summary.endHoldings.quote).toBeCloseTo(1000, 6)
      expect(result.fills).toHaveLength(144)
      const page = await dumpDom(report)
      expect(page.console).toEqual([])
      const price = chartMarks(page.dom, 'chart-price')
      expect(price.markers.reduce((sum, marker) => sum + marker.count, 0)).toBe(144)
      expect(chartMarks(page.dom, 'chart-equity').lines.every((line) => line.commands > 100)).toBe(true)
    }, 60_000)
  }
})

describe('deltaflow backtest: results', () => {
  it('sweeps a parameter: one JSON line per combination, each with its parameters', async () => {
    const { stdout, stderr, code } = await deltaflow([
      'backtest',
      'config/dca.yaml',
      '--quotes',
      store,
      '--json',
      '--set',
      'strategies.0.config.slicesPerOrder=3,6',
    ])
    expect(code, stderr).toBe(0)
    const lines = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
    expect(lines.map((line) => line.parameters)).toEqual([
      { 'strategies.0.config.slicesPerOrder': 3 },
      { 'strategies.0.config.slicesPerOrder': 6 },
    ])
    expect(lines[0].tradesHash).not.toBe(lines[1].tradesHash)
    expect(lines[0].summary.trades).toBe(24 * 3)
    expect(lines[1].summary.trades).toBe(24 * 6)
  }, 60_000)
})

describe('deltaflow backtest: the DCA example against buy-and-hold', () => {
  let text: { stdout: string; stderr: string; code: number }
  let json: { stdout: string; stderr: string; code: number }
  let result: BacktestResult
  const csvFile = directory.path('dca-trades.csv')
  const jsonlFile = directory.path('dca-trades.jsonl')

  beforeAll(async () => {
    const out = directory.path('dca-benchmarks.json')
    ;[text, json] = await Promise.all([
      deltaflow(['backtest', 'config/dca.yaml', '--quotes', store, '--out', out, '--trades', csvFile]),
      deltaflow(['backtest', 'config/dca.yaml', '--quotes', store, '--json', '--trades', jsonlFile]),
    ])
    expect(text.code, text.stderr).toBe(0)
    expect(json.code, json.stderr).toBe(0)
    result = parseBacktestResult(JSON.parse(readFileSync(out, 'utf8')), out)
  }, 60_000)

  it('measures the DCA against buying at the first price: ETH rose, so it lagged', () => {
    const { summary } = result
    const { buyAndHold, holdStart } = summary.benchmarks
    expect(summary.metrics.marketChange).toBeGreaterThan(0.05)
    // buy-and-hold puts the whole start value in ETH at the first price: it moves with the market
    expect(buyAndHold.return).toBeCloseTo(summary.metrics.marketChange ?? 0, 9)
    expect(buyAndHold.endValue).toBeCloseTo(summary.startValue * (1 + buyAndHold.return), 6)
    expect(buyAndHold.excess).toBeLessThan(0)
    expect(buyAndHold.excess).toBeCloseTo(summary.endValue - buyAndHold.endValue, 9)
    // holding the starting USDC earns nothing; the DCA beat that
    expect(holdStart.endValue).toBeCloseTo(summary.startValue, 6)
    expect(holdStart.excess).toBeGreaterThan(0)
    expect(holdStart.excess).toBeCloseTo(summary.pnl, 9)
    expect(result.series.buyAndHold.at(-1)?.[1]).toBeCloseTo(buyAndHold.endValue, 6)
    expect(result.series.holdStart.at(-1)?.[1]).toBeCloseTo(holdStart.endValue, 6)
  })

  it('says so in its headline, with the hold-start benchmark on the next line', () => {
    const { buyAndHold } = result.summary.benchmarks
    const lines = text.stdout.split('\n')
    expect(lines[1]).toContain(`lagged buy-and-hold by ${Math.abs(buyAndHold.excess).toFixed(2)} USDC`)
    expect(lines[1]).toContain(`buy-and-hold → ${buyAndHold.endValue.toFixed(2)} USDC`)
    expect(lines[2]).toMatch(/^ {2}beat holding the starting balances by \d+\.\d{2} USDC/)
    expect(text.stdout).toMatch(/Sharpe -?\d+\.\d{2}, Sortino (-?\d+\.\d{2}|-), Calmar/)
    expect(text.stdout).toContain(`${result.summary.metrics.returns.count} hourly returns`)
    expect(text.stdout).toContain('risk-free 0.00 % a year')
    expect(text.stdout).toMatch(/max drawdown \d+\.\d{2} % \(peak /)
  })

  it('carries the metrics in --json, without series, days or fills', () => {
    const summary = JSON.parse(json.stdout)
    expect(summary.summary).toEqual(result.summary)
    expect(summary.summary.metrics.returns).toMatchObject({ period: 'hour', periodsPerYear: 8760, riskFreeRate: 0 })
    for (const left of ['series', 'daily', 'fills']) expect(summary).not.toHaveProperty(left)
    expect(summary.strategies).toEqual(result.strategies)
  })

  it('keeps a day table and a drawdown curve in the whole result', () => {
    expect(result.daily.map((day) => day.day)).toEqual(['2026-02-25', '2026-02-26'])
    expect(result.daily.reduce((sum, day) => sum + day.trades, 0)).toBe(result.fills.length)
    const growth = result.daily.reduce((product, day) => product * (1 + day.return), 1)
    expect(growth).toBeCloseTo(1 + result.summary.metrics.totalReturn, 9)
    expect(result.series.drawdown).toHaveLength(result.series.equity.length)
    expect(Math.max(...result.series.drawdown.map(([, value]) => value))).toBeCloseTo(result.summary.metrics.maxDrawdown, 12)
  })

  it('exports every fill to CSV and JSON Lines with the documented columns', () => {
    const rows: Record<string, string>[] = parse(readFileSync(csvFile, 'utf8'), { columns: true })
    const lines = readFileSync(jsonlFile, 'utf8')
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line))
    expect(rows).toHaveLength(result.fills.length)
    expect(lines).toHaveLength(result.fills.length)
    expect(Object.keys(rows[0] ?? {})).toEqual([...tradeColumns])
    expect(Object.keys(lines[0] ?? {})).toEqual([...tradeColumns])
    expect(rows.map((row) => row.orderId)).toEqual(result.fills.map((fill) => fill.orderId))
    for (const [index, fill] of result.fills.entries()) {
      const row = rows[index] as Record<string, string>
      const line = lines[index]
      expect(row).toMatchObject({ timeMs: String(fill.t), time: new Date(fill.t).toISOString(), strategy: 'dca-weth', side: 'BUY' })
      expect(row).toMatchObject({ spentToken: 'USDC', receivedToken: 'WETH', spentAmount: row.quoteAmount, receivedAmount: row.baseAmount })
      expect(Number(row.baseAmount)).toBeCloseTo(fill.baseAmount, 12)
      expect(Number(row.quoteAmount)).toBeCloseTo(fill.quoteAmount, 9)
      expect(Number(row.price)).toBe(fill.price)
      expect(Number(row.plannedPrice)).toBe(fill.plannedPrice)
      expect(Number(row.slippageBps)).toBe(fill.slippageBps)
      expect(Number(row.fee)).toBe(fill.fee)
      expect(Number(row.gas)).toBe(fill.gas)
      expect(line).toMatchObject({ timeMs: fill.t, orderId: fill.orderId, mode: fill.mode, price: fill.price, baseAmount: row.baseAmount })
    }
  })
})

describe.concurrent('deltaflow backtest: bad input', () => {
  it('refuses a --trades file that is neither .csv nor .jsonl before running', async () => {
    const report = directory.path('never.html')
    const { stdout, stderr, code } = await deltaflow([
      'backtest',
      'config/dca.yaml',
      '--quotes',
      recording,
      '--report',
      report,
      '--trades',
      directory.path('trades.txt'),
    ])
    expect(code).toBe(2)
    expect(stderr).toContain('expected a file ending in .csv or .jsonl')
    expect(stderr).toContain('trades.txt')
    expect(stdout).toBe('')
    expect(existsSync(report)).toBe(false)
  })

  it('refuses a --report, --out or --trades path in a directory that does not exist before the replay opens', async () => {
    const nowhere = directory.path('no-such-directory')
    for (const [option, file] of [
      ['--report', `${nowhere}/report.html`],
      ['--out', `${nowhere}/result.json`],
      ['--trades', `${nowhere}/trades.csv`],
    ] as const) {
      // the quotes are not a recording at all: nothing may have read them
      const { stdout, stderr, code } = await deltaflow(['backtest', 'config/dca.yaml', '--quotes', 'package.json', option, file])
      expect(code, option).toBe(2)
      expect(stderr).toContain(`${option}: expected a file in an existing directory, received ${file} (${nowhere} does not exist)`)
      expect(stdout).toBe('')
    }
  })

  it('refuses a --set without a value, naming what it expects', async () => {
    const { stderr, code } = await deltaflow([
      'backtest',
      'config/dca.yaml',
      '--quotes',
      recording,
      '--set',
      'strategies.0.config.slicesPerOrder',
    ])
    expect(code).not.toBe(0)
    expect(stderr).toContain('--set expects path=value')
  })

  it('refuses a missing quote file, naming it', async () => {
    const { stderr, code } = await deltaflow(['backtest', 'config/dca.yaml', '--quotes', 'missing.jsonl.gz'])
    expect(code).not.toBe(0)
    expect(stderr).toContain('missing.jsonl.gz')
  })

  it('refuses a config value a sweep sets wrong, with the config path', async () => {
    const { stderr, code } = await deltaflow([
      'backtest',
      'config/dca.yaml',
      '--quotes',
      recording,
      '--set',
      'strategies.0.config.slicesPerOrder=many',
    ])
    expect(code).not.toBe(0)
    expect(stderr).toContain('strategies.0.config.slicesPerOrder')
  })
})
