import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { bundledStrategiesDirectory, locateStrategy } from '../../strategy/load-strategy.js'
import { StrategyLoadError } from '../../strategy/strategy-errors.js'
import type { MakerStrategyDefinition } from '../maker-strategy.js'
import { checkMakerStrategyDefinition } from './check-maker-strategy.js'

export type LoadMakerStrategyParameters = {
  /** Where relative paths and npm packages are resolved from: the config file's directory. */
  baseDirectory: string
  /** Searched in order for built-in names. Default: `<baseDirectory>/strategies`, then deltaflow's own strategies/. */
  strategyDirectories?: readonly string[] | undefined
}

/**
 * Loads the maker strategy a config names, as bot strategies are found: a built-in name (`strategies/<name>/`), a
 * file path, or an npm package. Its default export (or `strategy`) must be a maker strategy definition.
 *
 * @example
 * const definition = await loadMakerStrategy('market-maker', { baseDirectory: dirname(configFile) })
 */
export async function loadMakerStrategy(
  reference: string,
  { baseDirectory, strategyDirectories }: LoadMakerStrategyParameters,
): Promise<MakerStrategyDefinition> {
  const source = locateStrategy(
    reference,
    baseDirectory,
    strategyDirectories ?? [join(baseDirectory, 'strategies'), bundledStrategiesDirectory],
  )
  let module: Record<string, unknown>
  try {
    module = await import(pathToFileURL(source.file).href)
  } catch (error) {
    throw new StrategyLoadError({
      reference,
      reason: `importing ${source.file} failed: ${error instanceof Error ? error.message : String(error)}`,
      hint: 'fix the error in the strategy module (TypeScript strategies run through tsx, as `deltaflow` does)',
      cause: error,
    })
  }
  const exported = module.default ?? module.strategy
  if (exported === undefined) {
    throw new StrategyLoadError({
      reference,
      reason: `expected ${source.file} to export a maker strategy as default or as "strategy"`,
      hint: 'export default defineMakerStrategy({ apiVersion: 1, name, configSchema, references, balances, quote })',
    })
  }
  return checkMakerStrategyDefinition(exported, reference)
}
