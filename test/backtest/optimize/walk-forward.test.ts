import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { foldWindows, halvingWindows, rankScores, walkForwardEfficiency } from '../../../src/backtest/optimize/walk-forward.js'

const day = 86_400_000

describe('fold windows', () => {
  const walkForward = fc.record({
    folds: fc.integer({ min: 1, max: 12 }),
    inSample: fc.oneof(
      fc.double({ min: 0.05, max: 0.95, noNaN: true }),
      fc.integer({ min: 1, max: 48 }).map((hours) => `${hours}h`),
    ),
    mode: fc.constantFrom('rolling' as const, 'anchored' as const),
  })

  it('out-of-sample windows follow one another to the end, each after its in-sample window; anchored starts at the beginning', () => {
    fc.assert(
      fc.property(fc.nat(2e12), fc.integer({ min: 3 * day, max: 400 * day }), walkForward, (from, length, options) => {
        const period = { from, to: from + length }
        const folds = foldWindows(period, options)
        expect(folds).toHaveLength(options.folds)
        expect(folds.at(-1)?.outOfSample.to).toBe(period.to)
        folds.forEach((fold, index) => {
          expect(fold.index).toBe(index)
          expect(fold.inSample.from).toBeGreaterThanOrEqual(period.from)
          expect(fold.inSample.from).toBeLessThan(fold.inSample.to)
          expect(fold.inSample.to).toBe(fold.outOfSample.from)
          expect(fold.outOfSample.from).toBeLessThan(fold.outOfSample.to)
          if (options.mode === 'anchored') expect(fold.inSample.from).toBe(period.from)
          const previous = folds[index - 1]
          if (previous) {
            // in order, no overlap and no gap between out-of-sample windows
            expect(fold.outOfSample.from).toBe(previous.outOfSample.to)
            if (options.mode === 'rolling')
              expect(fold.inSample.to - fold.inSample.from).toBe(previous.inSample.to - previous.inSample.from)
          }
        })
        expect(folds[0]?.inSample.from).toBe(period.from)
      }),
    )
  })

  it('a fraction is the in-sample share of each rolling window', () => {
    // 10 days, 4 folds, 0.75: window w with 0.75 w + 4 × 0.25 w = 10 days → w = 5.714 days, in sample 4.286 days
    const folds = foldWindows({ from: 0, to: 10 * day }, { folds: 4, inSample: 0.75, mode: 'rolling' })
    const inSample = (folds[0]?.inSample.to ?? 0) - (folds[0]?.inSample.from ?? 0)
    const outOfSample = (folds[0]?.outOfSample.to ?? 0) - (folds[0]?.outOfSample.from ?? 0)
    expect(inSample / (inSample + outOfSample)).toBeCloseTo(0.75, 6)
    expect(foldWindows({ from: 0, to: 10 * day }, { folds: 2, inSample: '2d', mode: 'anchored' }).map((fold) => fold.outOfSample)).toEqual([
      { from: 2 * day, to: 6 * day },
      { from: 6 * day, to: 10 * day },
    ])
  })

  it('refuses a period too short for the folds, saying how long it is', () => {
    expect(() => foldWindows({ from: 0, to: day }, { folds: 2, inSample: '2d', mode: 'rolling' })).toThrow(
      'expected a period long enough for 2 folds',
    )
  })

  it('halving: growing windows from the start of the in-sample window, the last the whole', () => {
    expect(halvingWindows({ from: 100, to: 1_100 }, { keep: 0.5, rounds: 2 })).toEqual([
      { from: 100, to: 350 },
      { from: 100, to: 600 },
      { from: 100, to: 1_100 },
    ])
  })
})

describe('ranking', () => {
  it('best score first, ties by candidate index, excluded and unscored last', () => {
    const ranked = rankScores([
      { candidate: 3, score: 1 },
      { candidate: 0, score: null },
      { candidate: 2, score: 2, excluded: 'max drawdown 0.3 > 0.2' },
      { candidate: 4, score: 1 },
      { candidate: 1, score: 1.5 },
    ])
    expect(ranked.map((score) => score.candidate)).toEqual([1, 3, 4, 0, 2])
  })

  it('does not depend on the order scores come in', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.record({ candidate: fc.nat(50), score: fc.option(fc.integer({ min: -3, max: 3 })) }), {
          selector: (score) => score.candidate,
        }),
        (scores) => {
          expect(rankScores([...scores].reverse())).toEqual(rankScores(scores))
        },
      ),
    )
  })
})

describe('walk-forward efficiency', () => {
  it('is the mean out-of-sample return per day over the in-sample one', () => {
    // in sample: 4 % over 2 days (2 % a day) and 2 % over 2 days (1 % a day) → 1.5 % a day on average; out of sample:
    // 1 % over 1 day and 0 % over 1 day → 0.5 % a day; 0.5 / 1.5 = 1/3
    const efficiency = walkForwardEfficiency([
      { inSample: { from: 0, to: 2 * day }, outOfSample: { from: 2 * day, to: 3 * day }, isReturn: 0.04, oosReturn: 0.01 },
      { inSample: { from: day, to: 3 * day }, outOfSample: { from: 3 * day, to: 4 * day }, isReturn: 0.02, oosReturn: 0 },
    ])
    expect(efficiency).toBeCloseTo(1 / 3, 12)
    expect(walkForwardEfficiency([])).toBeNull()
  })
})
