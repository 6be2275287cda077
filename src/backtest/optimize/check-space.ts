import { dirname } from 'node:path'
import { type ConfigDocument, ConfigError, sortProblems } from '../../config/load-config.js'
import type { OptimizeConfig } from '../../config/optimize-schema.js'
import { loadCheckedConfig } from '../../runtime/load-strategies.js'
import { loadStrategy } from '../../strategy/load-strategy.js'
import { type Constraint, constraintPaths, gridValues, type ParameterValue, parametersOf, parseConstraint } from './space.js'

// Checks the `optimize:` section against the config it tunes, before any trial runs: every path of the space names a
// key the config (or its strategy's own schema) has, the config accepts the range's bounds and every choice, and
// every constraint parses and reads numbers. Each problem names the section's YAML line.

export type CheckedSpace = {
  optimize: OptimizeConfig
  constraints: Constraint[]
  /** A path's value in the config as a number (NaN when it is not one): what a constraint reads of a fixed key. */
  fixedValueOf: (path: string) => number
}

const missing = Symbol('missing')

export async function checkOptimizeSpace(document: ConfigDocument): Promise<CheckedSpace> {
  const { file, locate, locateKey } = document
  const optimize = document.config.optimize
  if (!optimize) {
    throw new ConfigError(file, [
      `${locate([])}: optimize: expected an optimize section (space, sampler, objective, walkForward), received none`,
    ])
  }
  const problems: string[] = []
  // Each strategy's config as its schema parses it (defaults included), by index.
  const strategyConfigs = new Map<number, unknown>()
  for (const [index, entry] of document.config.strategies.entries()) {
    // A disabled entry never runs: its plugin is not loaded (as the runtime does), and a path into it is refused below.
    if (!entry.enabled) continue
    const { definition } = await loadStrategy(entry.use, { baseDirectory: dirname(file) })
    const parsed = definition.configSchema.safeParse(entry.config)
    if (parsed.success) strategyConfigs.set(index, parsed.data)
  }
  /** The value at a dotted path: as written in the file (a strategy's raw config), else as its schema parsed it (a default). */
  const valueAt = (path: string): unknown => {
    const written = walk(document.config, path.split('.'))
    if (written !== missing) return written
    const [head, index, config, ...rest] = path.split('.')
    if (head !== 'strategies' || config !== 'config' || !strategyConfigs.has(Number(index))) return missing
    return walk(strategyConfigs.get(Number(index)), rest)
  }
  const parameters = parametersOf(optimize.space)
  for (const parameter of parameters) {
    const at = locateKey(['optimize', 'space'], parameter.path)
    const [head, index] = parameter.path.split('.')
    if (head === 'strategies' && document.config.strategies[Number(index)]?.enabled === false) {
      const name = document.config.strategies[Number(index)]?.name
      problems.push(
        `${at}: optimize.space: "${parameter.path}" tunes strategies.${index} (${name}), which has enabled: false: expected a path into an enabled strategy, as a disabled one never runs`,
      )
      continue
    }
    if (valueAt(parameter.path) === missing) {
      problems.push(
        `${at}: optimize.space: unknown path "${parameter.path}": the config has no such key (${keysHint(valueAt, parameter.path)})`,
      )
      continue
    }
    // The bounds and every choice, each set over the config and checked whole (the strategy's schema included).
    const values: ParameterValue[] = 'choices' in parameter.space ? parameter.space.choices : bounds(gridValues(parameter.space))
    for (const value of values) {
      try {
        await loadCheckedConfig(file, { set: [{ path: parameter.path, value: String(value) }], requireStrategies: true })
      } catch (error) {
        const detail = error instanceof ConfigError ? error.problems.join('; ') : error instanceof Error ? error.message : String(error)
        problems.push(`${at}: optimize.space.${parameter.path}: the config refuses the value ${JSON.stringify(value)}: ${detail}`)
      }
    }
  }
  const constraints: Constraint[] = []
  const spacePaths = new Set(parameters.map((parameter) => parameter.path))
  const fixedValueOf = (path: string) => {
    const value = valueAt(path)
    return typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : Number.NaN
  }
  for (const [index, text] of optimize.constraints.entries()) {
    const at = locate(['optimize', 'constraints', index])
    let constraint: Constraint
    try {
      constraint = parseConstraint(text)
    } catch (error) {
      problems.push(`${at}: optimize.constraints.${index}: ${(error as Error).message}`)
      continue
    }
    for (const path of constraintPaths(constraint)) {
      if (spacePaths.has(path)) continue
      if (valueAt(path) === missing)
        problems.push(
          `${at}: optimize.constraints.${index}: unknown path "${path}": neither a parameter of the space nor a key of the config`,
        )
      else if (!Number.isFinite(fixedValueOf(path)))
        problems.push(`${at}: optimize.constraints.${index}: expected a number at "${path}", received ${String(valueAt(path))}`)
    }
    constraints.push(constraint)
  }
  if (optimize.sampler === 'grid' && optimize.trials !== undefined) {
    problems.push(
      `${locate(['optimize', 'trials'])}: optimize.trials: expected no trials with the grid sampler (its size is the product of the steps), received ${optimize.trials}`,
    )
  }
  if (problems.length > 0) throw new ConfigError(file, sortProblems(problems))
  return { optimize, constraints, fixedValueOf }
}

function walk(root: unknown, segments: readonly string[]): unknown {
  let node = root
  for (const segment of segments) {
    if (typeof node !== 'object' || node === null || !Object.hasOwn(node, Array.isArray(node) ? Number(segment) : segment)) return missing
    node = (node as Record<string, unknown>)[segment]
  }
  return node
}

function bounds(values: readonly ParameterValue[]): ParameterValue[] {
  return [...new Set([values[0], values.at(-1)])].filter((value) => value !== undefined)
}

/** The keys beside where a path stops matching, for the message. */
function keysHint(valueAt: (path: string) => unknown, path: string): string {
  const segments = path.split('.')
  for (let length = segments.length - 1; length >= 0; length--) {
    const parent = segments.slice(0, length).join('.')
    const node = length === 0 ? undefined : valueAt(parent)
    if (length > 0 && typeof node === 'object' && node !== null && !Array.isArray(node)) {
      return `${parent} has ${Object.keys(node).join(', ')}`
    }
  }
  return 'expected a dotted path such as strategies.0.config.levels'
}
