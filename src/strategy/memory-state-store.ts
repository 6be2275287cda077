import type { z } from 'zod'
import type { StrategyStateStore } from './buffered-state.js'
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
 * it once and handed out as copies of that output until it changes.
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
  const setJson = (strategy: string, name: string, text: string) =>
    valuesOf(strategy).set(name, { text, primitive: false, value: undefined, schema: undefined, parsed: undefined })
  const setStrategyState = (strategy: string, name: string, value: unknown) => {
    // Every stored value has the same fields (one shape for the reads of every quote).
    if (isJsonPrimitive(value) || value === undefined)
      valuesOf(strategy).set(name, { text: '', primitive: true, value, schema: undefined, parsed: undefined })
    else setJson(strategy, name, JSON.stringify(value))
  }
  const deleteStrategyState = (strategy: string, name: string) => strategies.get(strategy)?.delete(name) ?? false
  return {
    getStrategyState: (strategy, name) => {
      const stored = strategies.get(strategy)?.get(name)
      if (stored === undefined) return undefined
      return stored.primitive ? stored.value : JSON.parse(stored.text)
    },
    getParsedStrategyState: <Schema extends z.ZodType>(strategy: string, name: string, schema: Schema) => {
      const stored = strategies.get(strategy)?.get(name)
      if (stored === undefined) return undefined
      if (stored.primitive) return stored.value === undefined ? undefined : (schema.parse(stored.value) as z.output<Schema>)
      // A value is read through one schema (its strategy's): the last one's output is kept.
      if (stored.schema !== schema) {
        stored.parsed = schema.parse(JSON.parse(stored.text))
        stored.schema = schema
      }
      return cloneData(stored.parsed) as z.output<Schema>
    },
    setStrategyState,
    setStrategyStateJson: setJson,
    deleteStrategyState,
    // Nothing here can fail halfway: the writes one after another are all or none.
    writeStrategyStates: (strategy, writes) => {
      for (const write of writes) {
        if (write.kind === 'delete') deleteStrategyState(strategy, write.key)
        else if (write.kind === 'json') setJson(strategy, write.key, write.json)
        else setStrategyState(strategy, write.key, write.value)
      }
    },
    keys: (strategy) => [...(strategies.get(strategy)?.keys() ?? [])],
  }
}
