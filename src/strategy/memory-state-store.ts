import type { StrategyStateStore } from './buffered-state.js'

/**
 * Strategy state kept in memory (a backtest or a test has no restart to survive): JSON in, fresh JSON out, as the
 * journal keeps it (bigints come back as decimal strings).
 */
export function createMemoryStateStore(): StrategyStateStore & { keys: (strategy: string) => string[] } {
  const values = new Map<string, string>()
  const key = (strategy: string, name: string) => `${strategy}\u0000${name}`
  return {
    getStrategyState: (strategy, name) => {
      const text = values.get(key(strategy, name))
      return text === undefined ? undefined : JSON.parse(text)
    },
    setStrategyState: (strategy, name, value) => {
      values.set(key(strategy, name), JSON.stringify(value))
    },
    deleteStrategyState: (strategy, name) => values.delete(key(strategy, name)),
    keys: (strategy) =>
      [...values.keys()].filter((stored) => stored.startsWith(`${strategy}\u0000`)).map((stored) => stored.slice(strategy.length + 1)),
  }
}
