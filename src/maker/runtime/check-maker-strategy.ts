import { describeReceived } from '../../domain/wire-fields.js'
import { strategyNamePattern } from '../../strategy/check-strategy-definition.js'
import { StrategyLoadError } from '../../strategy/strategy-errors.js'

/** The maker plugin contract this runtime speaks. */
export const makerStrategyApiVersion = 1

/**
 * Checks that `value` is a maker strategy definition this runtime can run; throws StrategyLoadError saying what was
 * expected and what was received. Duck-typed (a plugin may bring its own zod): configSchema needs only `safeParse`.
 * Returns it as `Definition`, the caller's MakerStrategyDefinition type (whose module imports this one).
 */
export function checkMakerStrategyDefinition<Definition>(value: unknown, reference: string): Definition {
  const refuse = (reason: string, hint: string): never => {
    throw new StrategyLoadError({ reference, reason, hint })
  }
  if (typeof value !== 'object' || value === null) {
    return refuse(
      `expected a maker strategy definition object, received ${describeReceived(value)}`,
      'export default defineMakerStrategy({ ... })',
    )
  }
  const field = (key: string): unknown => Reflect.get(value, key)
  if (field('apiVersion') !== makerStrategyApiVersion) {
    refuse(
      `expected apiVersion ${makerStrategyApiVersion}, received ${describeReceived(field('apiVersion'))}`,
      'this deltaflow runs maker strategies written for maker plugin API version 1',
    )
  }
  const name = field('name')
  if (typeof name !== 'string' || !strategyNamePattern.test(name)) {
    refuse(`expected name to be 1 to 64 letters, digits, ".", "_" or "-", received ${describeReceived(name)}`, 'name it e.g. "weth-maker"')
  }
  const configSchema = field('configSchema')
  if (typeof configSchema !== 'object' || configSchema === null || typeof Reflect.get(configSchema, 'safeParse') !== 'function') {
    refuse(`expected configSchema to be a zod schema, received ${describeReceived(configSchema)}`, 'use z.object({ ... }) from zod')
  }
  for (const required of ['references', 'balances', 'quote']) {
    if (typeof field(required) !== 'function') {
      const hint =
        field('subscriptions') !== undefined
          ? 'this looks like a bot strategy (defineStrategy); `deltaflow maker` runs maker strategies (defineMakerStrategy)'
          : `add ${required} to the definition`
      refuse(`expected ${required} to be a function, received ${describeReceived(field(required))}`, hint)
    }
  }
  const window = field('firmWindowSeconds')
  if (window !== undefined && typeof window !== 'function') {
    refuse(`expected firmWindowSeconds to be a function or absent, received ${describeReceived(window)}`, 'remove it or make it a function')
  }
  return value as Definition
}
