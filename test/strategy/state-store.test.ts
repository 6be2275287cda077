import BetterSqlite3 from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { openJournal } from '../../src/journal/journal.js'
import { createBufferedState, type StrategyStateStore } from '../../src/strategy/buffered-state.js'
import { cloneData } from '../../src/strategy/clone-data.js'
import { createMemoryStateStore } from '../../src/strategy/memory-state-store.js'
import { ManualClock } from '../../src/time/clock.js'
import { createTempDirectory } from '../helpers/temp-directory.js'

const amount = z
  .string()
  .regex(/^\d+$/)
  .transform((value) => BigInt(value))
const recordSchema = z.object({ total: amount, fills: z.array(z.number()), note: z.string().nullable() })

/** The journal (live) and memory (backtest) stores must give strategies the same state, read and written the same way. */
const stores: [string, () => StrategyStateStore][] = [
  ['the journal', () => openJournal({ file: ':memory:', clock: new ManualClock(0) })],
  ['memory', () => createMemoryStateStore()],
]

/** Runs one handler's worth of state calls, committed as a successful handler's are. */
function handle<T>(store: StrategyStateStore, run: (state: ReturnType<typeof createBufferedState>['state']) => T): T {
  const { state, commit } = createBufferedState(store, 'dca-1')
  const result = run(state)
  commit()
  return result
}

describe.each(stores)('strategy state in %s', (_name, open) => {
  it('gives a fresh, mutable copy on every read, parsed or not, and a change reaches the store only through set', () => {
    const store = open()
    handle(store, (state) => state.set('record', { total: 12n, fills: [1, 2], note: null }))
    const first = handle(store, (state) => state.get('record', recordSchema))
    expect(first).toEqual({ total: 12n, fills: [1, 2], note: null })
    first?.fills.push(3)
    if (first) first.total = 0n
    expect(handle(store, (state) => state.get('record', recordSchema))).toEqual({ total: 12n, fills: [1, 2], note: null })
    const raw = handle(store, (state) => state.get('record')) as { fills: number[] }
    raw.fills.push(4)
    expect(handle(store, (state) => state.get('record'))).toEqual({ total: '12', fills: [1, 2], note: null })
  })

  it('reads what was written last, through the same schema, in the handler that wrote it and after', () => {
    const store = open()
    handle(store, (state) => state.set('record', { total: '5', fills: [], note: 'a' }))
    expect(handle(store, (state) => state.get('record', recordSchema))?.total).toBe(5n)
    const inHandler = handle(store, (state) => {
      state.set('record', { total: 7n, fills: [9], note: 'b' })
      const read = state.get('record', recordSchema)
      read?.fills.push(10)
      return [read, state.get('record', recordSchema)]
    })
    expect(inHandler[1]).toEqual({ total: 7n, fills: [9], note: 'b' })
    expect(handle(store, (state) => state.get('record', recordSchema))).toEqual({ total: 7n, fills: [9], note: 'b' })
  })

  it('stores values as JSON gives them back: bigints as strings, non-finite numbers as null, dates as text', () => {
    const store = open()
    const at = new Date(Date.UTC(2023, 2, 11))
    handle(store, (state) => {
      state.set('wakeAt', 1_700_000_000_000)
      state.set('never', Number.POSITIVE_INFINITY)
      state.set('amount', 10n ** 30n)
      state.set('at', at)
      state.set('flag', false)
    })
    const read = handle(store, (state) => ['wakeAt', 'never', 'amount', 'at', 'flag', 'missing'].map((key) => state.get(key)))
    expect(read).toEqual([1_700_000_000_000, null, '1000000000000000000000000000000', at.toISOString(), false, undefined])
  })

  it('drops what a handler that fails set, and a value that no longer parses fails the read', () => {
    const store = open()
    handle(store, (state) => state.set('record', { total: '1', fills: [], note: null }))
    const { state } = createBufferedState(store, 'dca-1')
    state.set('record', { total: 'not a number', fills: [], note: null })
    expect(() => state.get('record', recordSchema)).toThrow()
    // Never committed: the stored value is as it was.
    expect(handle(store, (fresh) => fresh.get('record', recordSchema))?.total).toBe(1n)
    handle(store, (fresh) => fresh.set('record', { total: 'x', fills: [], note: null }))
    expect(() => handle(store, (fresh) => fresh.get('record', recordSchema))).toThrow()
  })

  it('deletes, and a deleted value reads as undefined with or without a schema', () => {
    const store = open()
    handle(store, (state) => state.set('record', { total: '3', fills: [], note: null }))
    expect(handle(store, (state) => state.delete('record'))).toBe(true)
    expect(handle(store, (state) => [state.get('record'), state.get('record', recordSchema)])).toEqual([undefined, undefined])
  })
})

describe('strategy state in the journal', () => {
  it('writes one handler’s keys all or none: a write refused halfway leaves every key as it was', () => {
    const directory = createTempDirectory('deltaflow-state-')
    const file = directory.path('journal.sqlite')
    const journal = openJournal({ file, clock: new ManualClock(0) })
    try {
      handle(journal, (state) => {
        state.set('schedule', { total: '1', fills: [], note: null })
        state.set('settled', [1])
      })
      // Another connection makes SQLite refuse one key: the handler's first write must not stay.
      const other = new BetterSqlite3(file)
      other.exec(
        `CREATE TRIGGER refuse_settled BEFORE UPDATE ON strategy_state WHEN new.key = 'settled'
         BEGIN SELECT RAISE(ABORT, 'refused by the test'); END`,
      )
      other.close()
      expect(() =>
        handle(journal, (state) => {
          state.set('schedule', { total: '2', fills: [7], note: null })
          state.set('settled', [1, 2])
        }),
      ).toThrow(/refused by the test/)
      expect(handle(journal, (state) => [state.get('schedule', recordSchema), state.get('settled')])).toEqual([
        { total: 1n, fills: [], note: null },
        [1],
      ])
    } finally {
      journal.close()
      directory.cleanup()
    }
  })
})

describe('cloneData', () => {
  it('copies plain data all the way down and keeps bigints, and copies anything else with structuredClone', () => {
    const value = { a: [1, { b: 2n }], c: null, d: 'x', e: new Date(0), f: new Map([[1, 2]]) }
    const copy = cloneData(value)
    expect(copy).toEqual(value)
    expect(copy.a).not.toBe(value.a)
    expect(copy.a[1]).not.toBe(value.a[1])
    expect(copy.e).not.toBe(value.e)
    expect(copy.e).toBeInstanceOf(Date)
    expect(copy.f).toBeInstanceOf(Map)
  })
})
