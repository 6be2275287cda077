import { existsSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createSequentialExecutor, type TrialExecutor, type TrialResult, type TrialSpec } from '../../../src/backtest/optimize/trial.js'
import { createWorkerPoolExecutor, WorkerPoolError } from '../../../src/backtest/optimize/worker-pool.js'
import { packRecordedQuotes } from '../../../src/backtest/quote-store.js'
import { createTempDirectory } from '../../helpers/temp-directory.js'
import { exampleConfigs, usdc, weth } from '../fixtures/backtest-inputs.js'

const sampleQuoteSet = fileURLToPath(new URL('../../fixtures/quotes/ethusdt-sample.jsonl.gz', import.meta.url))
const exitingStrategyFile = fileURLToPath(new URL('./fixtures/exiting-strategy.ts', import.meta.url))
const ladderConfig = `${exampleConfigs}ladder.yaml`
const hourMs = 3_600_000

/**
 * The compiled pool, as `deltaflow optimize --workers` runs it (the global setup builds dist/ when the sources changed):
 * its threads load trial-worker.js. The pool imported from src/ gives its threads the from-source entry, which loads
 * every module through tsx in each thread, at about three times the CPU; one test below runs that entry.
 */
const compiledPool = async (): Promise<typeof createWorkerPoolExecutor> => {
  const url = new URL('../../../dist/src/backtest/optimize/worker-pool.js', import.meta.url).href
  return ((await import(url)) as { createWorkerPoolExecutor: typeof createWorkerPoolExecutor }).createWorkerPoolExecutor
}

describe('createWorkerPoolExecutor', () => {
  const directory = createTempDirectory('deltaflow-worker-pool-')
  let quotes = ''
  let start = 0

  beforeAll(async () => {
    quotes = directory.path('sample.sqlite')
    const packed = await packRecordedQuotes({ input: sampleQuoteSet, output: quotes })
    start = packed.firstTime ?? 0
  })
  afterAll(() => directory.cleanup())

  /** The ladder example on the 4-hour sample: a grid, its levels and a window (hours from the start) per trial. */
  function ladderSpecs(): TrialSpec[] {
    const trials = [
      { lower: '1950', upper: '2050', levels: '5', hours: [0, 4], seed: 1 },
      { lower: '1900', upper: '2000', levels: '5', hours: [0, 4], seed: 2 },
      { lower: '1950', upper: '2050', levels: '3', hours: [1, 3], seed: 1 },
      { lower: '1980', upper: '2060', levels: '4', hours: [0, 2], seed: 3 },
      { lower: '1920', upper: '2040', levels: '6', hours: [2, 4], seed: 1 },
      { lower: '1900', upper: '2000', levels: '2', hours: [1, 4], seed: 5 },
      { lower: '2000', upper: '2040', levels: '4', hours: [0, 3], seed: 1 },
      // A candidate the strategy's schema refuses (a ladder needs levels ≥ 1): a failed trial, not a failed run.
      { lower: '1950', upper: '2050', levels: '0', hours: [0, 4], seed: 1 },
    ]
    return trials.map((trial, index) => ({
      id: `00000:is0:${String(index).padStart(5, '0')}`,
      configFile: ladderConfig,
      overrides: [
        { path: 'strategies.0.config.lowerPrice', value: trial.lower },
        { path: 'strategies.0.config.upperPrice', value: trial.upper },
        { path: 'strategies.0.config.levels', value: trial.levels },
      ],
      quotes,
      from: start + (trial.hours[0] ?? 0) * hourMs,
      to: start + (trial.hours[1] ?? 0) * hourMs,
      seed: trial.seed,
    }))
  }

  async function runOn(executor: TrialExecutor, specs: readonly TrialSpec[]): Promise<{ results: TrialResult[]; heard: string[] }> {
    const heard: string[] = []
    try {
      const results = await executor.run(specs, (result) => heard.push(result.id))
      return { results: [...results].sort((left, right) => left.id.localeCompare(right.id)), heard }
    } finally {
      await executor.close()
    }
  }

  it('gives the sequential executor’s results with 1, 2 and 4 workers of the compiled pool', async () => {
    const specs = ladderSpecs()
    const createCompiledPool = await compiledPool()
    const sequential = await runOn(createSequentialExecutor(), specs)
    // The comparison means something: trials that traded, trials that did not, and a failed one.
    expect(sequential.results.filter((result) => (result.summary?.trades ?? 0) > 0).length).toBeGreaterThanOrEqual(3)
    expect(sequential.results.some((result) => result.summary?.trades === 0)).toBe(true)
    expect(sequential.results.at(-1)?.error).toMatch(/levels/)
    for (const workers of [1, 2, 4]) {
      const pooled = await runOn(createCompiledPool({ workers }), specs)
      expect(
        pooled.results.map((result) => result.tradesHash),
        `${workers} workers`,
      ).toEqual(sequential.results.map((result) => result.tradesHash))
      expect(pooled.results, `${workers} workers`).toEqual(sequential.results)
      // onResult heard every trial once.
      expect([...pooled.heard].sort(), `${workers} workers`).toEqual(specs.map((spec) => spec.id))
    }
  }, 120_000)

  function exitingSpec(id: string, exit: 'always' | 'once'): TrialSpec {
    const configFile = directory.path(`exiting-${id}.yaml`)
    writeFileSync(
      configFile,
      JSON.stringify({
        mode: 'paper',
        risk: { maxSlippageBps: 500, maxPriceImpactPercent: 10 },
        backtest: { balances: { [`1:${weth.address}`]: '1000000000000000000', [`1:${usdc.address}`]: '2000000000' } },
        strategies: [{ name: 'exiting', use: exitingStrategyFile, config: { exit, marker: directory.path(`exited-${id}`) } }],
      }),
    )
    return { id, configFile, overrides: [], quotes, from: start, to: start + hourMs, seed: 1 }
  }

  it('replaces a worker that dies during a trial, runs the trial once more, then reports it failed', async () => {
    const specs = ladderSpecs().slice(0, 3)
    const sequential = await runOn(createSequentialExecutor(), specs)
    const diesOnce = exitingSpec('dies-once', 'once')
    const diesAlways = exitingSpec('dies-always', 'always')
    const createCompiledPool = await compiledPool()
    const { results } = await runOn(createCompiledPool({ workers: 2 }), [diesOnce, ...specs, diesAlways])
    // Its first worker died; a fresh one ran it to the end.
    expect(existsSync(directory.path('exited-dies-once'))).toBe(true)
    const once = results.find((result) => result.id === 'dies-once')
    expect(once?.error).toBeUndefined()
    expect(once?.summary?.trades).toBe(0)
    // Both of its workers died: a failed trial, and the run went on.
    const always = results.find((result) => result.id === 'dies-always')
    expect(always?.error).toMatch(
      /died, and so did the fresh one it was given \(worker exited with code: 3; then worker exited with code: 3\)/,
    )
    expect(always?.tradesHash).toBe('')
    expect(always?.summary).toBeUndefined()
    expect(results.filter((result) => !result.id.startsWith('dies-'))).toEqual(sequential.results)
  }, 60_000)

  it('runs trials in threads that load the sources when the pool is itself TypeScript (tests, scripts)', async () => {
    // A trial that trades and the failed one: results and errors cross the thread as the compiled pool's do.
    const specs = [ladderSpecs()[0], ladderSpecs().at(-1)].filter((spec) => spec !== undefined)
    const sequential = await runOn(createSequentialExecutor(), specs)
    expect(sequential.results[0]?.summary?.trades).toBeGreaterThan(0)
    expect(sequential.results[1]?.error).toMatch(/levels/)
    const pooled = await runOn(createWorkerPoolExecutor({ workers: 1 }), specs)
    expect(pooled.results).toEqual(sequential.results)
  }, 60_000)

  it('refuses a worker count that is not a whole number of at least 1', () => {
    for (const workers of [0, -1, 1.5, Number.NaN]) {
      expect(() => createWorkerPoolExecutor({ workers })).toThrow(WorkerPoolError)
    }
    expect(() => createWorkerPoolExecutor({ workers: 0 })).toThrow(
      /expected the number of workers to be a whole number of at least 1, received 0/,
    )
  })
})
