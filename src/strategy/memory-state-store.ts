import type { StrategyStateStore } from './buffered-state.js'
import { isJsonPrimitive } from './json-primitive.js'

/** A stored value: its JSON, and the value itself when it is a primitive (nothing can change it, so it is shared). */
type Stored = { text: string; primitive: boolean; value: unknown }

/**
 * Strategy state kept in memory (a backtest or a test has no restart to survive): JSON in, fresh JSON out, as the
 * journal keeps it (bigints come back as decimal strings). A primitive comes back as it was stored, without parsing:
 * a replay reads a strategy's small values (a time, a flag) on every quote.
 */
export function createMemoryStateStore(): StrategyStateStore & { keys: (strategy: string) => string[] } {
  const strategies = new Map<string, Map<string, Stored>>()
  const valuesOf = (strategy: string) => {
    let values = strategies.get(strategy)
    if (values === undefined) {
      values = new Map()
      strategies.set(strategy, values)
    }
    return values
  }
  return {
    getStrategyState: (strategy, name) => {
      const stored = strategies.get(strategy)?.get(name)
      if (stored === undefined) return undefined
      return stored.primitive ? stored.value : JSON.parse(stored.text)
    },
    setStrategyState: (strategy, name, value) => {
      const text = isJsonPrimitive(value) ? undefined : JSON.stringify(value)
      valuesOf(strategy).set(name, text === undefined ? { text: '', primitive: true, value } : { text, primitive: false, value: undefined })
    },
    deleteStrategyState: (strategy, name) => strategies.get(strategy)?.delete(name) ?? false,
    keys: (strategy) => [...(strategies.get(strategy)?.keys() ?? [])],
  }
}
