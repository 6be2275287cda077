import { importStrategyModule, type LoadStrategyParameters } from '../../strategy/load-strategy.js'
import type { MakerStrategyDefinition } from '../maker-strategy.js'
import { checkMakerStrategyDefinition } from './check-maker-strategy.js'

export type LoadMakerStrategyParameters = LoadStrategyParameters

/**
 * Loads the maker strategy a config names, as bot strategies are found: a built-in name (`strategies/<name>/`), a
 * file path, or an npm package. Its default export (or `strategy`) must be a maker strategy definition.
 *
 * @example
 * const definition = await loadMakerStrategy('market-maker', { baseDirectory: dirname(configFile) })
 */
export async function loadMakerStrategy(reference: string, parameters: LoadMakerStrategyParameters): Promise<MakerStrategyDefinition> {
  const { exported } = await importStrategyModule(reference, parameters, {
    kind: 'a maker strategy',
    hint: 'export default defineMakerStrategy({ apiVersion: 1, name, configSchema, references, balances, quote })',
  })
  return checkMakerStrategyDefinition(exported, reference)
}
