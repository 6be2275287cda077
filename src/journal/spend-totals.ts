import type { Database } from 'better-sqlite3'
import { utcDay } from '../domain/risk-usage.js'
import { toAmountText } from './sql-values.js'

/** The total over all days is kept under this day. */
const allDays = '*'

/**
 * Statements over `spend_totals`: what accepted intents commit of each source token per UTC day and in total. Each
 * function runs inside the caller's transaction (amounts are exact: read, added as bigint, written back).
 */
export function createSpendTotalStatements(db: Database) {
  const select = db.prepare<[string, string], string>('SELECT amount FROM spend_totals WHERE token = ? AND day = ?').pluck()
  const upsert = db.prepare(
    'INSERT INTO spend_totals (token, day, amount) VALUES (?, ?, ?) ON CONFLICT (token, day) DO UPDATE SET amount = excluded.amount',
  )
  const selectAll = db.prepare<[], { token: string; day: string; amount: string }>('SELECT token, day, amount FROM spend_totals')
  const selectDay = db.prepare<[string, string], { token: string; day: string; amount: string }>(
    'SELECT token, day, amount FROM spend_totals WHERE day = ? OR day = ?',
  )

  /** Adds (or, negative, takes back) an intent's spend on its day and in the total. */
  function addSpend(token: string, unixMs: number, amount: bigint): void {
    for (const day of [utcDay(unixMs), allDays]) {
      const current = BigInt(select.get(token, day) ?? '0')
      const next = current + amount
      upsert.run(token, day, toAmountText(next < 0n ? 0n : next))
    }
  }

  /** Every token's spend per day (only on the UTC day of `unixMs`, when given) and in total. */
  function spendTotals(unixMs?: number): Map<string, { byDay: Map<string, bigint>; total: bigint }> {
    const totals = new Map<string, { byDay: Map<string, bigint>; total: bigint }>()
    const rows = unixMs === undefined ? selectAll.iterate() : selectDay.iterate(utcDay(unixMs), allDays)
    for (const { token, day, amount } of rows) {
      const entry = totals.get(token) ?? { byDay: new Map<string, bigint>(), total: 0n }
      if (day === allDays) entry.total = BigInt(amount)
      else entry.byDay.set(day, BigInt(amount))
      totals.set(token, entry)
    }
    return totals
  }

  return { addSpend, spendTotals }
}
