import { readFileSync, writeFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runDeltaflow } from '../helpers/deltaflow-cli.js'
import { createTempDirectory } from '../helpers/temp-directory.js'

// `deltaflow optimize` end to end: the ladder's example (config/ladder-optimize.yaml: 2 folds, 8 halton draws) on the
// recorded ETH/USDT quotes packed into a store.

const directory = createTempDirectory('deltaflow-optimize-cli-')
afterAll(() => directory.cleanup())
const example = 'config/ladder-optimize.yaml'
let store: string

/** The 1-based line of the example's first line containing `text`. */
function lineOf(text: string): number {
  return (
    readFileSync(example, 'utf8')
      .split('\n')
      .findIndex((line) => line.includes(text)) + 1
  )
}

beforeAll(async () => {
  store = directory.path('strategies.sqlite')
  const packed = await runDeltaflow(['quotes', 'pack', 'test/fixtures/quotes/ethusdt-strategies.jsonl.gz', '--out', store])
  expect(packed.code, packed.stderr).toBe(0)
}, 60_000)

type Figures = { score: number | null; return: number | null }
type Report = {
  candidates: { index: number; values: unknown[] }[]
  folds: { winner: number | null; inSampleScore: Figures | null; outOfSampleScore: Figures | null; ranking: unknown[] }[]
  recommendation: {
    candidate: number
    chosenInFold: number
    outOfSample: { fold: number }[]
    neighbours: unknown[]
    deflatedSharpe: unknown
  } | null
  walkForwardEfficiency: number | null
}

describe('deltaflow optimize', () => {
  it('runs the ladder example: a ranking per fold, OOS beside IS, a recommendation with its robustness', async () => {
    const { code, stdout, stderr } = await runDeltaflow(['optimize', example, '--quotes', store])
    expect(code, stderr).toBe(0)
    expect(stdout).toContain('7 candidates (halton, seed 1), 2 folds')
    expect(stdout).toMatch(/fold 1: in-sample 2026-02-25T00:00Z → /)
    expect(stdout).toContain('IS sharpe  OOS sharpe  IS return  OOS return')
    expect(stdout).toMatch(/walk-forward efficiency -?\d+\.\d\d/)
    expect(stdout).toMatch(/recommended: #\d+ \(chosen in fold \d; mean OOS sharpe/)
    expect(stdout).toContain('robustness: one step either way')
    expect(stdout).toMatch(/deflated Sharpe ratio \d\.\d{3}/)
  })

  it('--json: one document, byte-identical for the same seed, another for another seed; the recommendation is a fold winner scored out of sample', async () => {
    const first = await runDeltaflow(['optimize', example, '--quotes', store, '--json'])
    const again = await runDeltaflow(['optimize', example, '--quotes', store, '--json'])
    const other = await runDeltaflow(['optimize', example, '--quotes', store, '--json', '--seed', '7'])
    expect(first.code, first.stderr).toBe(0)
    expect(again.stdout).toBe(first.stdout)
    expect(other.stdout).not.toBe(first.stdout)
    const report = JSON.parse(first.stdout) as Report
    expect(report.folds).toHaveLength(2)
    for (const fold of report.folds) {
      expect(fold.ranking).toHaveLength(report.candidates.length)
      expect(fold.inSampleScore?.score).toEqual(expect.any(Number))
      expect(fold.outOfSampleScore?.score).toEqual(expect.any(Number))
    }
    const recommendation = report.recommendation
    expect(recommendation).not.toBeNull()
    expect(report.folds.map((fold) => fold.winner)).toContain(recommendation?.candidate)
    expect(report.folds[recommendation?.chosenInFold ?? -1]?.winner).toBe(recommendation?.candidate)
    expect(recommendation?.outOfSample.length).toBeGreaterThan(0)
    expect(recommendation?.neighbours.length).toBeGreaterThan(0)
  })

  it('refuses an unknown path with its YAML line before anything runs (not even the quotes are read)', async () => {
    const config = directory.path('unknown-path.yaml')
    // in the example's directory for `use: ladder`; the quotes are not a store at all
    writeFileSync(
      config,
      readFileSync(example, 'utf8').replace('    strategies.0.config.lowerPrice:\n', '    strategies.0.config.lowerPrise:\n'),
    )
    const garbage = directory.path('garbage.sqlite')
    writeFileSync(garbage, 'not a store')
    const { code, stderr } = await runDeltaflow(['optimize', config, '--quotes', garbage])
    expect(code).toBe(1)
    expect(stderr).toContain(
      `${config}:${lineOf('    strategies.0.config.lowerPrice:')}:5: optimize.space: unknown path "strategies.0.config.lowerPrise": the config has no such key`,
    )
    expect(stderr).not.toContain('garbage')
  })

  it('refuses a value the strategy refuses at a bound, and a bad constraint, each at its line', async () => {
    const config = directory.path('bad-bounds.yaml')
    writeFileSync(
      config,
      readFileSync(example, 'utf8')
        .replace('range: { min: 3, max: 7, step: 2, type: integer }', 'range: { min: 1, max: 7, step: 2, type: integer }')
        .replace('- "strategies.0.config.lowerPrice + 100 <= strategies.0.config.upperPrice"', '- "strategies.0.config.lowerPrice <<= 5"'),
    )
    const { code, stderr } = await runDeltaflow(['optimize', config, '--quotes', store])
    expect(code).toBe(1)
    expect(stderr).toMatch(
      new RegExp(
        `bad-bounds\\.yaml:${lineOf('    strategies.0.config.levels:')}:5: optimize\\.space\\.strategies\\.0\\.config\\.levels: the config refuses the value 1: .*levels`,
      ),
    )
    expect(stderr).toMatch(/bad-bounds\.yaml:\d+:\d+: optimize\.constraints\.0: expected "a < b"/)
  })

  it('usage errors exit 2 before anything runs', async () => {
    for (const args of [
      ['--workers', '0'],
      ['--seed', 'x'],
      ['--from', 'yesterday'],
    ]) {
      const { code, stderr } = await runDeltaflow(['optimize', example, '--quotes', store, ...args])
      expect(code, args.join(' ')).toBe(2)
      expect(stderr).toMatch(/expected/)
    }
    const missing = await runDeltaflow(['optimize', example, '--quotes', directory.path('none.sqlite')])
    expect(missing.code).toBe(2)
  })
})
