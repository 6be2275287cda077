import type { z } from 'zod'
import type { StrategyState } from './define-strategy.js'
import { isJsonPrimitive } from './json-primitive.js'

/** Where strategies' state lives: the journal live, memory in a backtest. Values are JSON (bigints as strings). */
export type StrategyStateStore = {
  getStrategyState: (strategy: string, key: string) => unknown
  setStrategyState: (strategy: string, key: string, value: unknown) => void
  deleteStrategyState: (strategy: string, key: string) => boolean
  /**
   * Optional, for stores that keep values in memory: the value parsed by `schema` as a fresh copy (a store may keep a
   * schema's output until the value changes, instead of parsing it on every read), or undefined when none is stored.
   */
  getParsedStrategyState?: <Schema extends z.ZodType>(strategy: string, key: string, schema: Schema) => z.output<Schema> | undefined
  /** Optional: stores a value given as its JSON text (what `set` already wrote), so the store need not write it again. */
  setStrategyStateJson?: (strategy: string, key: string, json: string) => void
  /**
   * Optional: one handler's writes, applied all or none (the journal: in one transaction), so that keys a strategy
   * keeps in step never disagree after a crash. Without it, each write is applied on its own.
   */
  writeStrategyStates?: (strategy: string, writes: readonly StrategyStateWrite[]) => void
}

/** One key's change of a handler's writes: a value (JSON, bigints as strings), its JSON text, or a delete. */
export type StrategyStateWrite =
  | { key: string; kind: 'value'; value: unknown }
  | { key: string; kind: 'json'; json: string }
  | { key: string; kind: 'delete' }

export type BufferedState = {
  state: StrategyState
  /** Writes the handler's sets and deletes to the journal (called only when the handler succeeded). */
  commit: () => void
}

const deleted = Symbol('deleted')

const toJson = (_key: string, inner: unknown) => (typeof inner === 'bigint' ? inner.toString() : inner)

/** A set object value, kept as the JSON it round-trips through: parsed again (a fresh copy) when read back. */
class JsonText {
  constructor(readonly text: string) {}
}

/**
 * The state of one handler call. A class rather than closures: one is made per event, on the hot path of a replay
 * (the safe wrapper's handler context is one). Its methods are called as methods (`state.get(...)`).
 */
export class HandlerState implements StrategyState {
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
    return value === deleted ? undefined : value instanceof JsonText ? JSON.parse(value.text) : value
  }

  get(key: string, schema?: z.ZodType): never {
    if (schema !== undefined && this.#store.getParsedStrategyState !== undefined && !this.#pending?.has(key)) {
      return this.#store.getParsedStrategyState(this.#strategy, key, schema) as never
    }
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
    // JSON.stringify turns a non-finite number (or an object's toJSON) into something else: kept as JSON says.
    this.#pending.set(key, text.startsWith('{') || text.startsWith('[') ? new JsonText(text) : JSON.parse(text))
  }

  delete(key: string): boolean {
    const existed = this.#read(key) !== undefined
    this.#pending ??= new Map()
    this.#pending.set(key, deleted)
    return existed
  }

  commit(): void {
    const pending = this.#pending
    if (pending === undefined || pending.size === 0) return
    const store = this.#store
    if (pending.size > 1 && store.writeStrategyStates !== undefined) {
      const writes: StrategyStateWrite[] = []
      for (const [key, value] of pending) {
        if (value === deleted) writes.push({ key, kind: 'delete' })
        else if (value instanceof JsonText) writes.push({ key, kind: 'json', json: value.text })
        else writes.push({ key, kind: 'value', value })
      }
      store.writeStrategyStates(this.#strategy, writes)
      pending.clear()
      return
    }
    for (const [key, value] of pending) {
      if (value === deleted) store.deleteStrategyState(this.#strategy, key)
      else if (!(value instanceof JsonText)) store.setStrategyState(this.#strategy, key, value)
      else if (store.setStrategyStateJson !== undefined) store.setStrategyStateJson(this.#strategy, key, value.text)
      else store.setStrategyState(this.#strategy, key, JSON.parse(value.text))
    }
    pending.clear()
  }
}

/**
 * The state one handler call sees: reads fall through to the journal, writes wait in memory until `commit`, so a
 * handler that fails leaves the stored state as it was (and a store with writeStrategyStates takes them all or none). Values round-trip through JSON on `set`, as the journal keeps them.
 */
export function createBufferedState(store: StrategyStateStore, strategy: string): BufferedState {
  const state = new HandlerState(store, strategy)
  return { state, commit: () => state.commit() }
}
