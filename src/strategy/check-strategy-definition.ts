import { describeReceived } from '../domain/wire-fields.js'
import { StrategyLoadError } from './strategy-errors.js'

/** The plugin contract this runtime speaks. A definition of another version is refused. */
export const strategyApiVersion = 1

export const supportedStrategyApiVersions: readonly number[] = [strategyApiVersion]

export const strategyNamePattern = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/

const handlerNames = [
  'timers',
  'balances',
  'onStart',
  'onQuote',
  'onOrderUpdate',
  'onFill',
  'onRefund',
  'onTimer',
  'onBalances',
  'onIntentResult',
  'onStop',
] as const

/**
 * Checks that `value` is a strategy definition this runtime can run; throws StrategyLoadError saying what was expected
 * and what was received. Duck-typed (a plugin may bring its own copy of zod): configSchema needs only `safeParse`.
 * Returns it as `Definition`, the StrategyDefinition type of the caller (this module does not import it: the
 * definition's module imports this one).
 */
export function checkStrategyDefinition<Definition>(value: unknown, reference: string): Definition {
  const refuse = (reason: string, hint: string): never => {
    throw new StrategyLoadError({ reference, reason, hint })
  }
  if (typeof value !== 'object' || value === null) {
    return refuse(`expected a strategy definition object, received ${describeReceived(value)}`, 'export default defineStrategy({ ... })')
  }
  const field = (key: string): unknown => Reflect.get(value, key)
  const apiVersion = field('apiVersion')
  if (typeof apiVersion !== 'number' || !supportedStrategyApiVersions.includes(apiVersion)) {
    refuse(
      `expected apiVersion ${supportedStrategyApiVersions.join(' or ')}, received ${describeReceived(apiVersion)}`,
      'this deltaflow runs strategies written for plugin API version 1; update the strategy or deltaflow',
    )
  }
  const name = field('name')
  if (typeof name !== 'string' || !strategyNamePattern.test(name)) {
    refuse(
      `expected name to be 1 to 64 letters, digits, ".", "_" or "-", received ${describeReceived(name)}`,
      'give the strategy a short name such as "twap-eth"',
    )
  }
  const configSchema = field('configSchema')
  if (typeof configSchema !== 'object' || configSchema === null || typeof Reflect.get(configSchema, 'safeParse') !== 'function') {
    refuse(`expected configSchema to be a zod schema, received ${describeReceived(configSchema)}`, 'use z.object({ ... }) from zod')
  }
  if (typeof field('subscriptions') !== 'function') {
    refuse(
      `expected subscriptions to be a function (config) => QuoteRequest[], received ${describeReceived(field('subscriptions'))}`,
      'return [] when the strategy needs no quotes',
    )
  }
  for (const handler of handlerNames) {
    const member = field(handler)
    if (member !== undefined && typeof member !== 'function') {
      refuse(
        `expected ${handler} to be a function or absent, received ${describeReceived(member)}`,
        `remove ${handler} or make it a function`,
      )
    }
  }
  return value as Definition
}
