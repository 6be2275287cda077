import { describe, expect, it } from 'vitest'
import { type OptimizeReport, runOptimization } from '../../../src/backtest/optimize/optimize.js'
import { formatOptimizeReport } from '../../../src/backtest/optimize/optimize-text.js'
import type { TrialExecutor, TrialResult, TrialSpec } from '../../../src/backtest/optimize/trial.js'
import { optimizeConfigSchema } from '../../../src/config/optimize-schema.js'
import { syntheticBacktestResult } from '../synthetic-backtest-result.js'

// The optimisation as the terminal prints it, from the real optimiser on a scripted executor: a failed trial's
// multi-line error keeps to one line of its table, and a run without a recommendation says why.

const base = syntheticBacktestResult({ points: 20 }).summary
/** As a BaseError's message reads: the short message, then its details and hint on lines of their own. */
const multiLineError = 'the config refuses x = 3\n  path: strategies.0.config.x\n  hint: give x from 1 to 2'

function scripted(fail: (x: number) => boolean): TrialExecutor {
  const result = (spec: TrialSpec): TrialResult => {
    const x = Number(spec.overrides[0]?.value)
    if (fail(x)) return { id: spec.id, tradesHash: '', error: multiLineError }
    return { id: spec.id, tradesHash: 'ab', summary: { ...base, trades: 3, metrics: { ...base.metrics, sharpe: x, totalReturn: x / 100 } } }
  }
  return { run: async (specs) => specs.map(result), close: async () => {} }
}

function reportOf(executor: TrialExecutor): Promise<OptimizeReport> {
  return runOptimization({
    configFile: '/configs/x.yaml',
    quotes: '/quotes/q.sqlite',
    optimize: optimizeConfigSchema.parse({
      space: { 'strategies.0.config.x': { range: { min: 1, max: 4, step: 1, type: 'integer' } } },
      walkForward: { folds: 2, inSample: 0.5, mode: 'rolling' },
    }),
    constraints: [],
    fixedValueOf: () => Number.NaN,
    period: { from: 0, to: 30 * 86_400_000 },
    seed: 3,
    executor,
  })
}

describe('formatOptimizeReport', () => {
  it('keeps a failed trial to one line of the ranking: the first line of its error', async () => {
    const text = formatOptimizeReport(await reportOf(scripted((x) => x === 3)))
    const failedRows = text.split('\n').filter((line) => line.includes('the config refuses x = 3'))
    expect(failedRows).toHaveLength(2)
    for (const row of failedRows) expect(row).toMatch(/^\d+\s+#\d+\s+3\s+-\s+-\s+-\s+the config refuses x = 3$/)
    expect(text).not.toContain('hint: give x')
  })

  it('says why there is no recommendation', async () => {
    const text = formatOptimizeReport(await reportOf(scripted(() => true)))
    expect(text).toContain(
      'no recommendation: No fold has an in-sample winner: in every fold every candidate failed, broke a limit or had no score (see the rankings).',
    )
  })
})
