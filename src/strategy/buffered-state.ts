import type { z } from 'zod'
import type { Journal } from '../journal/journal.js'
import type { StrategyState } from './define-strategy.js'

export type StrategyStateStore = Pick<Journal, 'getStrategyState' | 'setStrategyState' | 'deleteStrategyState'>

export type BufferedState = {
  state: StrategyState
  /** Writes the handler's sets and deletes to the journal (called only when the handler succeeded). */
  commit: () => void
}

const deleted = Symbol('deleted')

/**
 * The state one handler call sees: reads fall through to the journal, writes wait in memory until `commit`, so a
 * handler that fails leaves the stored state as it was. Values round-trip through JSON on `set`, as the journal keeps them.
 */
export function createBufferedState(store: StrategyStateStore, strategy: string): BufferedState {
  const pending = new Map<string, unknown>()

  function read(key: string): unknown {
    if (!pending.has(key)) return store.getStrategyState(strategy, key)
    const value = pending.get(key)
    return value === deleted ? undefined : structuredClone(value)
  }

  function get(key: string, schema?: z.ZodType): unknown {
    const value = read(key)
    return schema === undefined || value === undefined ? value : schema.parse(value)
  }

  const state: StrategyState = {
    get: get as StrategyState['get'],
    set(key, value) {
      const text = JSON.stringify(value, (_key, inner: unknown) => (typeof inner === 'bigint' ? inner.toString() : inner))
      if (text === undefined) throw new TypeError(`state "${key}": expected a JSON value, received ${typeof value}`)
      pending.set(key, JSON.parse(text))
    },
    delete(key) {
      const existed = read(key) !== undefined
      pending.set(key, deleted)
      return existed
    },
  }

  function commit(): void {
    for (const [key, value] of pending) {
      if (value === deleted) store.deleteStrategyState(strategy, key)
      else store.setStrategyState(strategy, key, value)
    }
    pending.clear()
  }

  return { state, commit }
}
