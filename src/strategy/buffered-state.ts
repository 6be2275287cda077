import type { z } from 'zod'
import type { StrategyState } from './define-strategy.js'
import { isJsonPrimitive } from './json-primitive.js'

/** Where strategies' state lives: the journal live, memory in a backtest. Values are JSON (bigints as strings). */
export type StrategyStateStore = {
  getStrategyState: (strategy: string, key: string) => unknown
  setStrategyState: (strategy: string, key: string, value: unknown) => void
  deleteStrategyState: (strategy: string, key: string) => boolean
}

export type BufferedState = {
  state: StrategyState
  /** Writes the handler's sets and deletes to the journal (called only when the handler succeeded). */
  commit: () => void
}

const deleted = Symbol('deleted')

const toJson = (_key: string, inner: unknown) => (typeof inner === 'bigint' ? inner.toString() : inner)

/**
 * The state of one handler call. A class rather than closures: one is made per event, on the hot path of a replay.
 * Its methods are called as methods (`state.get(...)`).
 */
class HandlerState implements StrategyState {
  readonly #store: StrategyStateStore
  readonly #strategy: string
  #pending: Map<string, unknown> | undefined

  constructor(store: StrategyStateStore, strategy: string) {
    this.#store = store
    this.#strategy = strategy
  }

  #read(key: string): unknown {
    if (this.#pending === undefined || !this.#pending.has(key)) return this.#store.getStrategyState(this.#strategy, key)
    const value = this.#pending.get(key)
    return value === deleted ? undefined : isJsonPrimitive(value) ? value : structuredClone(value)
  }

  get(key: string, schema?: z.ZodType): never {
    const value = this.#read(key)
    return (schema === undefined || value === undefined ? value : schema.parse(value)) as never
  }

  set(key: string, value: unknown): void {
    this.#pending ??= new Map()
    if (isJsonPrimitive(value)) {
      this.#pending.set(key, value)
      return
    }
    const text = JSON.stringify(value, toJson)
    if (text === undefined) throw new TypeError(`state "${key}": expected a JSON value, received ${typeof value}`)
    this.#pending.set(key, JSON.parse(text))
  }

  delete(key: string): boolean {
    const existed = this.#read(key) !== undefined
    this.#pending ??= new Map()
    this.#pending.set(key, deleted)
    return existed
  }

  commit(): void {
    if (this.#pending === undefined) return
    for (const [key, value] of this.#pending) {
      if (value === deleted) this.#store.deleteStrategyState(this.#strategy, key)
      else this.#store.setStrategyState(this.#strategy, key, value)
    }
    this.#pending.clear()
  }
}

/**
 * The state one handler call sees: reads fall through to the journal, writes wait in memory until `commit`, so a
 * handler that fails leaves the stored state as it was. Values round-trip through JSON on `set`, as the journal keeps them.
 */
export function createBufferedState(store: StrategyStateStore, strategy: string): BufferedState {
  const state = new HandlerState(store, strategy)
  return { state, commit: () => state.commit() }
}

/** As createBufferedState, as one object: `state` and `commit()` in one (the handler context's form). */
export function createHandlerState(store: StrategyStateStore, strategy: string): StrategyState & { commit(): void } {
  return new HandlerState(store, strategy)
}
