import type { Database } from 'better-sqlite3'
import type { StrategyStateWrite } from '../strategy/buffered-state.js'
import type { Clock } from '../time/clock.js'
import { jsonColumn, toJsonText } from './sql-values.js'

/** Statements over `strategy_state`: (strategy, key) → JSON value. Each function runs inside the caller's transaction. */
export function createStrategyStateStatements(db: Database, clock: Clock) {
  const select = db.prepare<[string, string], string>('SELECT value_json FROM strategy_state WHERE strategy = ? AND key = ?').pluck()
  const upsert = db.prepare(
    `INSERT INTO strategy_state (strategy, key, value_json, updated_at) VALUES (?, ?, ?, ?)
     ON CONFLICT (strategy, key) DO UPDATE SET value_json = excluded.value_json, updated_at = excluded.updated_at`,
  )
  const remove = db.prepare('DELETE FROM strategy_state WHERE strategy = ? AND key = ?')

  /** The stored value as parsed JSON (bigints come back as decimal strings), or undefined; the strategy parses it with its own schema. */
  function getStrategyState(strategy: string, key: string): unknown {
    const text = select.get(strategy, key)
    return text === undefined ? undefined : jsonColumn.parse(text)
  }

  function setStrategyState(strategy: string, key: string, value: unknown): void {
    upsert.run(strategy, key, toJsonText(value), clock.now())
  }

  /** Returns whether a value was there. */
  function deleteStrategyState(strategy: string, key: string): boolean {
    return remove.run(strategy, key).changes === 1
  }

  /** One handler's writes (the caller's transaction makes them all or none); a JSON text is stored as it is. */
  function writeStrategyStates(strategy: string, writes: readonly StrategyStateWrite[]): void {
    const now = clock.now()
    for (const write of writes) {
      if (write.kind === 'delete') remove.run(strategy, write.key)
      else upsert.run(strategy, write.key, write.kind === 'json' ? write.json : toJsonText(write.value), now)
    }
  }

  return { getStrategyState, setStrategyState, deleteStrategyState, writeStrategyStates }
}
