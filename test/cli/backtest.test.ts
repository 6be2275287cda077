import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseBacktestResult } from '../../src/backtest/backtest-result.js'
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

describe.concurrent('deltaflow backtest: bad input', () => {
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
