import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  gridValues,
  haltonPoint,
  neighboursOf,
  type Parameter,
  parseConstraint,
  radicalInverse,
  sampleCandidates,
  satisfies,
} from '../../../src/backtest/optimize/space.js'
import type { ParameterSpace } from '../../../src/config/optimize-schema.js'

/** A range parameter as the schema gives it (defaults filled). */
function range(
  min: number,
  max: number,
  extra: { step?: number; scale?: 'linear' | 'log'; type?: 'integer' | 'real' } = {},
): ParameterSpace {
  return {
    range: {
      min,
      max,
      scale: extra.scale ?? 'linear',
      type: extra.type ?? 'real',
      ...(extra.step === undefined ? {} : { step: extra.step }),
    },
  }
}

const rangeArbitrary = fc
  .record({
    low: fc.integer({ min: 1, max: 1_000 }),
    width: fc.integer({ min: 0, max: 1_000 }),
    scale: fc.constantFrom('linear' as const, 'log' as const),
    type: fc.constantFrom('integer' as const, 'real' as const),
  })
  .map(({ low, width, scale, type }) => range(low, low + width, { scale, type }))

const spaceArbitrary = fc.array(fc.oneof(rangeArbitrary, fc.constant<ParameterSpace>({ choices: ['linear', 'geometric', 3] })), {
  minLength: 1,
  maxLength: 4,
})

const parametersOf = (spaces: readonly ParameterSpace[]): Parameter[] => spaces.map((space, index) => ({ path: `p${index}`, space }))

describe('samplers', () => {
  it('random and halton: every value in its bounds, integers whole, choices among the choices; the same seed, the same candidates', () => {
    fc.assert(
      fc.property(spaceArbitrary, fc.constantFrom('random' as const, 'halton' as const), fc.nat(10_000), (spaces, sampler, seed) => {
        const parameters = parametersOf(spaces)
        const first = sampleCandidates({ parameters, sampler, trials: 25, seed })
        expect(sampleCandidates({ parameters, sampler, trials: 25, seed })).toEqual(first)
        expect(first.candidates.length).toBeGreaterThan(0)
        for (const candidate of first.candidates) {
          candidate.forEach((value, index) => {
            const space = spaces[index] as ParameterSpace
            if ('choices' in space) expect(space.choices).toContain(value)
            else {
              expect(value).toBeGreaterThanOrEqual(space.range.min)
              expect(value).toBeLessThanOrEqual(space.range.max)
              if (space.range.type === 'integer') expect(Number.isInteger(value)).toBe(true)
            }
          })
        }
      }),
    )
  })

  it('another seed draws other candidates', () => {
    const parameters = parametersOf([range(0, 1), range(10, 1_000, { scale: 'log' })])
    for (const sampler of ['random', 'halton'] as const) {
      expect(sampleCandidates({ parameters, sampler, trials: 8, seed: 1 }).candidates).not.toEqual(
        sampleCandidates({ parameters, sampler, trials: 8, seed: 2 }).candidates,
      )
    }
  })

  it('log scale: draws spread evenly in the logarithm (about half below the geometric mean)', () => {
    const parameters = parametersOf([range(1, 10_000, { scale: 'log' })])
    const { candidates } = sampleCandidates({ parameters, sampler: 'halton', trials: 400, seed: 0 })
    const below = candidates.filter(([value]) => Number(value) < 100).length
    expect(below / candidates.length).toBeGreaterThan(0.45)
    expect(below / candidates.length).toBeLessThan(0.55)
  })

  it('halton is the radical inverse in prime bases, from index seed + 1', () => {
    expect([1, 2, 3, 4].map((index) => radicalInverse(index, 2))).toEqual([0.5, 0.25, 0.75, 0.125])
    expect(radicalInverse(5, 3)).toBeCloseTo(2 / 3 + 1 / 9, 12)
    expect(haltonPoint(0, 2, 0)).toEqual([0.5, 1 / 3])
    expect(haltonPoint(0, 2, 3)).toEqual([radicalInverse(4, 2), radicalInverse(4, 3)])
  })

  it('grid: steps from min to max (log: ratios), five values without a step, integers deduplicated, every combination', () => {
    expect(gridValues(range(1, 2, { step: 0.25 }))).toEqual([1, 1.25, 1.5, 1.75, 2])
    expect(gridValues(range(0, 1))).toEqual([0, 0.25, 0.5, 0.75, 1])
    expect(gridValues(range(1, 1_000, { scale: 'log', step: 10 }))).toEqual([1, 10, 100, 1_000])
    expect(gridValues(range(1, 3, { type: 'integer' }))).toEqual([1, 2, 3])
    expect(gridValues(range(0.1, 0.3, { step: 0.1 }))).toEqual([0.1, 0.2, 0.3])
    const { candidates } = sampleCandidates({
      parameters: parametersOf([range(1, 2, { step: 1 }), { choices: ['a', 'b'] }]),
      sampler: 'grid',
      seed: 0,
    })
    expect(candidates).toEqual([
      [1, 'a'],
      [1, 'b'],
      [2, 'a'],
      [2, 'b'],
    ])
  })

  it('skips and counts the candidates a constraint refuses', () => {
    fc.assert(
      fc.property(fc.constantFrom('grid' as const, 'random' as const, 'halton' as const), fc.nat(1_000), (sampler, seed) => {
        const parameters = parametersOf([range(0, 100, { step: 10 }), range(0, 100, { step: 10 })])
        const constraint = parseConstraint('p0 + 20 <= p1')
        const all = sampleCandidates({ parameters, sampler, trials: 30, seed })
        const kept = sampleCandidates({ parameters, sampler, trials: 30, seed, constraints: [constraint] })
        for (const [low, high] of kept.candidates) expect(Number(low) + 20).toBeLessThanOrEqual(Number(high))
        expect(kept.candidates.length + kept.skipped).toBe(all.candidates.length)
      }),
    )
  })
})

describe('constraints', () => {
  const values: Record<string, number> = { 'strategies.0.config.lowerPrice': 1_900, 'strategies.0.config.upperPrice': 2_100, n: 4 }
  const holds = (text: string) => satisfies(parseConstraint(text), (path) => values[path] ?? Number.NaN)

  it('compares paths and numbers with an offset or a factor', () => {
    expect(holds('strategies.0.config.lowerPrice < strategies.0.config.upperPrice')).toBe(true)
    expect(holds('strategies.0.config.lowerPrice + 200 <= strategies.0.config.upperPrice')).toBe(true)
    expect(holds('strategies.0.config.lowerPrice + 201 <= strategies.0.config.upperPrice')).toBe(false)
    expect(holds('n * 2 == 8')).toBe(true)
    expect(holds('n - 1 > 3')).toBe(false)
    expect(holds('n >= 4')).toBe(true)
    expect(holds('n != 4')).toBe(false)
    expect(holds('2 < n')).toBe(true)
    // an unknown value fails the constraint rather than passing it
    expect(holds('missing < 5')).toBe(false)
  })

  it('refuses anything else, saying what it expects, and evaluates nothing as code', () => {
    for (const text of ['a <', 'a < b < c', 'process.exit(1) < 2', 'a + b < c', 'a < b; 1', 'a => b', '']) {
      expect(() => parseConstraint(text), text).toThrow('expected "a < b"')
    }
  })
})

describe('neighbours', () => {
  it('one step either way, within the bounds', () => {
    expect(neighboursOf(range(1, 9, { step: 2, type: 'integer' }), 5)).toEqual([3, 7])
    expect(neighboursOf(range(1, 9, { type: 'integer' }), 9)).toEqual([8])
    expect(neighboursOf(range(0, 1), 0.5)).toEqual([0.25, 0.75])
    expect(neighboursOf(range(1, 1_000, { scale: 'log', step: 10 }), 10)).toEqual([1, 100])
    expect(neighboursOf({ choices: ['a', 'b', 'c'] }, 'a')).toEqual(['b'])
    expect(neighboursOf({ choices: ['a', 'b', 'c'] }, 'b')).toEqual(['a', 'c'])
  })
})
