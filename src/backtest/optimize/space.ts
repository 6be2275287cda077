import type { OptimizeConfig, ParameterSpace } from '../../config/optimize-schema.js'
import { createRandom } from '../../domain/seeded-random.js'

// The parameter space of `optimize:` (src/config/optimize-schema.ts): candidates drawn by a sampler (pure and seeded:
// the same seed gives the same candidates), the constraints between parameters, and a parameter's neighbours.

export type ParameterValue = string | number | boolean
/** One parameter: its config path and its space. */
export type Parameter = { path: string; space: ParameterSpace }
/** A candidate: one value per parameter, in the space's order. */
export type Candidate = ParameterValue[]

export function parametersOf(space: OptimizeConfig['space']): Parameter[] {
  return Object.entries(space).map(([path, entry]) => ({ path, space: entry }))
}

// ---- constraints: `side op side`, a side being a path or a number, optionally `+ n`, `- n` or `* n` ----

type Side = { path: string | null; constant: number; offset: number; factor: number }
export type Constraint = { text: string; left: Side; op: '<' | '<=' | '>' | '>=' | '==' | '!='; right: Side }

const number = String.raw`-?\d+(?:\.\d+)?(?:e[-+]?\d+)?`
const operand = String.raw`([A-Za-z_][\w]*(?:\.[\w]+)*|${number})`
const sidePattern = String.raw`\s*${operand}\s*(?:([-+*])\s*(${number}))?\s*`
const constraintPattern = new RegExp(`^${sidePattern}(<=|>=|==|!=|<|>)${sidePattern}$`, 'i')

/** Parses `a < b`, `a + 10 <= b`, `a * 2 < b`; throws an Error saying what was expected. Nothing is evaluated as code. */
export function parseConstraint(text: string): Constraint {
  const match = constraintPattern.exec(text)
  if (!match) {
    throw new Error(
      `expected "a < b", "a <= b" or "a + 10 <= b" (a config path or a number on each side, < <= > >= == or !=), received "${text}"`,
    )
  }
  const side = (value: string, op: string | undefined, by: string | undefined): Side => {
    const isNumber = new RegExp(`^${number}$`, 'i').test(value)
    const amount = by === undefined ? 0 : Number(by)
    return {
      path: isNumber ? null : value,
      constant: isNumber ? Number(value) : 0,
      offset: op === '+' ? amount : op === '-' ? -amount : 0,
      factor: op === '*' ? amount : 1,
    }
  }
  return {
    text,
    left: side(match[1] as string, match[2], match[3]),
    op: match[4] as Constraint['op'],
    right: side(match[5] as string, match[6], match[7]),
  }
}

/** The paths a constraint reads. */
export function constraintPaths(constraint: Constraint): string[] {
  return [constraint.left.path, constraint.right.path].filter((path): path is string => path !== null)
}

/** Whether `numberAt` (a path's value as a number) satisfies the constraint; a non-numeric value fails it. */
export function satisfies(constraint: Constraint, numberAt: (path: string) => number): boolean {
  const side = ({ path, constant, offset, factor }: Side) => (path === null ? constant : numberAt(path)) * factor + offset
  const left = side(constraint.left)
  const right = side(constraint.right)
  if (!Number.isFinite(left) || !Number.isFinite(right)) return false
  switch (constraint.op) {
    case '<':
      return left < right
    case '<=':
      return left <= right
    case '>':
      return left > right
    case '>=':
      return left >= right
    case '==':
      return left === right
    case '!=':
      return left !== right
  }
}

// ---- samplers ----

/** Default number of grid values of a range without a step. */
export const defaultGridValues = 5

/** A range's values on its grid: min, min + step, … (log: min, min × step, …) up to max; integers rounded, deduplicated. */
export function gridValues(parameter: ParameterSpace): ParameterValue[] {
  if ('choices' in parameter) return [...parameter.choices]
  const { min, max, step, scale, type } = parameter.range
  const values: number[] = []
  if (max === min) values.push(min)
  else if (scale === 'log') {
    const ratio = step ?? (max / min) ** (1 / (defaultGridValues - 1))
    for (let index = 0; ; index++) {
      const value = min * ratio ** index
      if (value > max * (1 + 1e-12)) break
      values.push(Math.min(value, max))
    }
  } else {
    const by = step ?? (max - min) / (defaultGridValues - 1)
    for (let index = 0; ; index++) {
      const value = min + by * index
      if (value > max + Math.abs(max) * 1e-12) break
      values.push(Math.min(value, max))
    }
  }
  const rounded = values.map((value) => (type === 'integer' ? Math.round(value) : roundReal(value)))
  return [...new Set(rounded)]
}

/** Twelve significant digits: a candidate prints the same whatever float noise the arithmetic left. */
function roundReal(value: number): number {
  return Number(value.toPrecision(12))
}

/** A point of [0, 1) mapped into a parameter's space (snapped to its step when it has one). */
export function valueAt(parameter: ParameterSpace, u: number): ParameterValue {
  if ('choices' in parameter)
    return parameter.choices[Math.min(parameter.choices.length - 1, Math.floor(u * parameter.choices.length))] as ParameterValue
  const { min, max, step, scale, type } = parameter.range
  if (step !== undefined) {
    const grid = gridValues(parameter)
    return grid[Math.min(grid.length - 1, Math.floor(u * grid.length))] as ParameterValue
  }
  if (type === 'integer') {
    const low = Math.ceil(min)
    const high = Math.floor(max)
    if (scale === 'log') return Math.min(high, Math.max(low, Math.round(Math.exp(Math.log(low) + u * (Math.log(high) - Math.log(low))))))
    return Math.min(high, low + Math.floor(u * (high - low + 1)))
  }
  const value = scale === 'log' ? Math.exp(Math.log(min) + u * (Math.log(max) - Math.log(min))) : min + u * (max - min)
  return Math.min(max, Math.max(min, roundReal(value)))
}

const primes = [2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67, 71, 73, 79, 83, 89, 97]

/** The radical inverse of `index` in `base`: the Halton sequence's coordinate. */
export function radicalInverse(index: number, base: number): number {
  let result = 0
  let fraction = 1 / base
  for (let rest = index; rest > 0; rest = Math.floor(rest / base)) {
    result += (rest % base) * fraction
    fraction /= base
  }
  return result
}

/**
 * The Halton sequence in `dimensions` (one prime base per dimension), from index `seed + 1`: the seed shifts where the
 * sequence starts (index 0 is the all-zero corner, left out).
 */
export function haltonPoint(index: number, dimensions: number, seed: number): number[] {
  if (dimensions > primes.length)
    throw new Error(`expected at most ${primes.length} parameters for the halton sampler, received ${dimensions}`)
  return primes.slice(0, dimensions).map((base) => radicalInverse(seed + 1 + index, base))
}

export type Sampled = { candidates: Candidate[]; skipped: number }

/**
 * The sampler's candidates, constraints applied (a candidate failing one is skipped and counted): grid, every
 * combination (the first parameter varying slowest); random and halton, `trials` draws, duplicates dropped.
 */
export function sampleCandidates(options: {
  parameters: readonly Parameter[]
  sampler: OptimizeConfig['sampler']
  trials?: number | undefined
  seed: number
  constraints?: readonly Constraint[]
  /** A constraint's path that is not a parameter: its value in the config. */
  fixedValueOf?: (path: string) => number
}): Sampled {
  const { parameters, sampler, seed, constraints = [], fixedValueOf = () => Number.NaN } = options
  let drawn: Candidate[]
  if (sampler === 'grid') {
    drawn = [[]]
    for (const parameter of parameters)
      drawn = drawn.flatMap((candidate) => gridValues(parameter.space).map((value) => [...candidate, value]))
  } else {
    const trials = options.trials ?? 20
    const random = createRandom(seed)
    drawn = []
    for (let index = 0; index < trials; index++) {
      const point = sampler === 'halton' ? haltonPoint(index, parameters.length, seed) : parameters.map(() => random())
      drawn.push(parameters.map((parameter, dimension) => valueAt(parameter.space, point[dimension] as number)))
    }
  }
  const seen = new Set<string>()
  const candidates: Candidate[] = []
  let skipped = 0
  for (const candidate of drawn) {
    const key = JSON.stringify(candidate)
    if (seen.has(key)) continue
    seen.add(key)
    const numberAt = (path: string) => {
      const at = parameters.findIndex((parameter) => parameter.path === path)
      return at < 0 ? fixedValueOf(path) : Number(candidate[at])
    }
    if (constraints.every((constraint) => satisfies(constraint, numberAt))) candidates.push(candidate)
    else skipped++
  }
  return { candidates, skipped }
}

/**
 * The values one step either side of `value` (fewer at a bound): the next grid value of a range with a step, ±1 for
 * an integer range, a quarter of the range (log: the fourth root of max/min as a ratio) for a real one, the neighbouring
 * choices of a list.
 */
export function neighboursOf(parameter: ParameterSpace, value: ParameterValue): ParameterValue[] {
  if ('choices' in parameter) {
    const at = parameter.choices.indexOf(value)
    return [parameter.choices[at - 1], parameter.choices[at + 1]].filter((choice) => choice !== undefined)
  }
  const { min, max, step, scale, type } = parameter.range
  const current = Number(value)
  let candidates: number[]
  if (scale === 'log') {
    const ratio = step ?? (max / min) ** (1 / (defaultGridValues - 1))
    candidates = [current / ratio, current * ratio]
  } else {
    const by = step ?? (type === 'integer' ? 1 : (max - min) / (defaultGridValues - 1))
    candidates = [current - by, current + by]
  }
  const rounded = candidates.map((next) => (type === 'integer' ? Math.round(next) : roundReal(next)))
  return rounded.filter((next) => next >= min - 1e-12 && next <= max + 1e-12 && next !== current)
}
