import { describe, expect, it } from 'vitest'
import type { BacktestSummary } from '../../../src/backtest/backtest-result.js'
import { type OptimizeInputs, runOptimization } from '../../../src/backtest/optimize/optimize.js'
import type { TrialExecutor, TrialResult, TrialSpec } from '../../../src/backtest/optimize/trial.js'
import { optimizeConfigSchema } from '../../../src/config/optimize-schema.js'
import { syntheticBacktestResult } from '../synthetic-backtest-result.js'

// runOptimization with a scripted executor: each trial's Sharpe is a function of its fold, stage and candidate, so
// the in-sample winners, the out-of-sample scores and the recommendation are known in advance.

const base = syntheticBacktestResult({ points: 20 }).summary

function summaryWith(sharpe: number, totalReturn: number): BacktestSummary {
  return { ...base, metrics: { ...base.metrics, sharpe, totalReturn, maxDrawdown: 0.01 } }
}

/** In sample, fold 0 prefers x = 4 and fold 1 x = 2; out of sample, x = 4 loses and x = 2 wins. */
function scripted(spec: TrialSpec): TrialResult {
  const [fold, stage] = spec.id.split(':') as [string, string]
  const x = Number(spec.overrides[0]?.value)
  const sharpe = stage.startsWith('is') ? (fold === '00000' ? x : -((x - 2) ** 2)) : x === 2 ? 1 : x === 4 ? -1 : 0.5 - Math.abs(x - 2)
  return { id: spec.id, summary: summaryWith(sharpe, sharpe / 100), tradesHash: 'ab' }
}

function executor(reverse: boolean, seen: TrialSpec[] = []): TrialExecutor {
  return {
    async run(specs, onResult) {
      seen.push(...specs)
      const results = specs.map(scripted)
      if (reverse) results.reverse()
      for (const result of results) onResult?.(result)
      return results
    },
    async close() {},
  }
}

function inputs(overrides: Record<string, unknown>, chosen: TrialExecutor): OptimizeInputs {
  return {
    configFile: '/configs/x.yaml',
    quotes: '/quotes/q.sqlite',
    optimize: optimizeConfigSchema.parse({
      space: { x: { range: { min: 1, max: 4, step: 1, type: 'integer' } } },
      walkForward: { folds: 2, inSample: 0.5, mode: 'rolling' },
      ...overrides,
    }),
    constraints: [],
    fixedValueOf: () => Number.NaN,
    period: { from: 0, to: 30 * 86_400_000 },
    seed: 3,
    executor: chosen,
  }
}

describe('runOptimization', () => {
  it('recommends from out-of-sample scores, not from the best in-sample one, and tells each fold IS vs OOS', async () => {
    const report = await runOptimization(inputs({}, executor(false)))
    expect(report.candidates.map((candidate) => candidate.values)).toEqual([[1], [2], [3], [4]])
    expect(report.folds.map((fold) => fold.winner)).toEqual([3, 1])
    expect(report.folds.map((fold) => [fold.inSampleScore?.score, fold.outOfSampleScore?.score])).toEqual([
      [4, -1],
      [-0, 1],
    ])
    expect(report.recommendation?.values).toEqual({ x: 2 })
    expect(report.recommendation?.chosenInFold).toBe(1)
    expect(report.recommendation?.meanScore).toBe(1)
    // x = 4 was scored out of sample on both folds (it was chosen in the first), x = 2 on the second only
    expect(report.recommendation?.outOfSample.map((entry) => entry.fold)).toEqual([1])
    // neighbours x = 1 and x = 3 score 0.5 − 1 = −0.5 against 1: sharp drops
    expect(report.recommendation?.neighbours.map((neighbour) => [neighbour.value, neighbour.meanScore])).toEqual([
      [1, -0.5],
      [3, -0.5],
    ])
    expect(report.recommendation?.warnings.filter((warning) => warning.includes('sharp peak'))).toHaveLength(2)
    // IS returns 4 % and 0 %, OOS −1 % and 1 % over windows of equal length: (0 / 2) / (4 / 2) = 0
    expect(report.walkForwardEfficiency).toBe(0)
  })

  it('gives the same report whatever order the trials finish in', async () => {
    expect(await runOptimization(inputs({}, executor(true)))).toEqual(await runOptimization(inputs({}, executor(false))))
  })

  it('halving: every candidate on the shortest window, the kept fraction on longer ones, ranked by the last round', async () => {
    const seen: TrialSpec[] = []
    const report = await runOptimization(inputs({ halving: { keep: 0.5, rounds: 1 } }, executor(false, seen)))
    const fold0 = seen.filter((spec) => spec.id.startsWith('00000:is'))
    expect(fold0.filter((spec) => spec.id.includes(':is0:'))).toHaveLength(4)
    // the best half of round 0 (x = 4, 3) on the whole in-sample window
    expect(fold0.filter((spec) => spec.id.includes(':is1:')).map((spec) => spec.overrides[0]?.value)).toEqual(['3', '4'])
    const round0 = fold0.find((spec) => spec.id.includes(':is0:')) as TrialSpec
    const round1 = fold0.find((spec) => spec.id.includes(':is1:')) as TrialSpec
    expect(round0.to - round0.from).toBe((round1.to - round1.from) / 2)
    expect(report.folds[0]?.ranking.map((row) => [row.candidate, row.round])).toEqual([
      [3, 1],
      [2, 1],
      [1, 0],
      [0, 0],
    ])
  })

  it('ranks a candidate breaking a limit or failing after every other, and recommends nothing without OOS evidence', async () => {
    const failing: TrialExecutor = {
      async run(specs) {
        return specs.map((spec) => ({ id: spec.id, tradesHash: '', error: 'the config refuses x' }))
      },
      async close() {},
    }
    const report = await runOptimization(inputs({}, failing))
    expect(report.folds.map((fold) => fold.winner)).toEqual([null, null])
    expect(report.folds[0]?.ranking[0]?.excluded).toBe('the config refuses x')
    expect(report.recommendation).toBeNull()
  })
})
