import type { z } from 'zod'
import type { StrategyStateStore, StrategyStateWrite } from './buffered-state.js'
import { cloneData } from './clone-data.js'
import { isJsonPrimitive } from './json-primitive.js'

/**
 * A stored value: its JSON, or the value itself when it is a primitive (nothing can change it, so it is shared); and
 * what the schema it was last read through made of it, kept until the value changes.
 */
type Stored = { text: string; primitive: boolean; value: unknown; schema: z.ZodType | undefined; parsed: unknown }

/**
 * Strategy state kept in memory (a backtest or a test has no restart to survive): JSON in, fresh JSON out, as the
 * journal keeps it (bigints come back as decimal strings). A replay reads a strategy's state on every quote and every
 * fill, so a primitive comes back as it was stored, without parsing, and a value read through a schema is parsed by
 * it once and handed out as copies of that output until it changes. Its methods are called as methods.
 */
export function createMemoryStateStore(): StrategyStateStore & { keys: (strategy: string) => string[] } {
  return new MemoryStateStore()
}

/**
 * A class rather than closures: every backtest of a process (an optimiser's trials, a benchmark's runs) makes a store,
 * and the replay's code, compiled with a store's reads inlined, then meets the same functions in the next run instead
 * of new ones it would be deoptimised for and compiled again.
 */
class MemoryStateStore implements StrategyStateStore {
  readonly #strategies = new Map<string, Map<string, Stored>>()

  #valuesOf(strategy: string): Map<string, Stored> {
    let values = this.#strategies.get(strategy)
    if (values === undefined) {
      values = new Map()
      this.#strategies.set(strategy, values)
    }
    return values
  }

  getStrategyState(strategy: string, name: string): unknown {
    const stored = this.#strategies.get(strategy)?.get(name)
    if (stored === undefined) return undefined
    return stored.primitive ? stored.value : JSON.parse(stored.text)
  }

  getParsedStrategyState<Schema extends z.ZodType>(strategy: string, name: string, schema: Schema): z.output<Schema> | undefined {
    const stored = this.#strategies.get(strategy)?.get(name)
    if (stored === undefined) return undefined
    if (stored.primitive) return stored.value === undefined ? undefined : (schema.parse(stored.value) as z.output<Schema>)
    // A value is read through one schema (its strategy's): the last one's output is kept.
    if (stored.schema !== schema) {
      stored.parsed = schema.parse(JSON.parse(stored.text))
      stored.schema = schema
    }
    return cloneData(stored.parsed) as z.output<Schema>
  }

  setStrategyState(strategy: string, name: string, value: unknown): void {
    // Every stored value has the same fields (one shape for the reads of every quote).
    if (isJsonPrimitive(value) || value === undefined)
      this.#valuesOf(strategy).set(name, { text: '', primitive: true, value, schema: undefined, parsed: undefined })
    else this.setStrategyStateJson(strategy, name, JSON.stringify(value))
  }

  setStrategyStateJson(strategy: string, name: string, text: string): void {
    this.#valuesOf(strategy).set(name, { text, primitive: false, value: undefined, schema: undefined, parsed: undefined })
  }

  deleteStrategyState(strategy: string, name: string): boolean {
    return this.#strategies.get(strategy)?.delete(name) ?? false
  }

  // Nothing here can fail halfway: the writes one after another are all or none.
  writeStrategyStates(strategy: string, writes: readonly StrategyStateWrite[]): void {
    for (const write of writes) {
      if (write.kind === 'delete') this.deleteStrategyState(strategy, write.key)
      else if (write.kind === 'json') this.setStrategyStateJson(strategy, write.key, write.json)
      else this.setStrategyState(strategy, write.key, write.value)
    }
  }

  keys(strategy: string): string[] {
    return [...(this.#strategies.get(strategy)?.keys() ?? [])]
  }
}
