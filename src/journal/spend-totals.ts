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
  // The day's row and the total's of one token, read and written together.
  const selectBoth = db.prepare<[string, string], { day: string; amount: string }>(
    `SELECT day, amount FROM spend_totals WHERE token = ? AND day IN (?, '${allDays}')`,
  )
  const upsertBoth = db.prepare(
    `INSERT INTO spend_totals (token, day, amount) VALUES (?, ?, ?), (?, '${allDays}', ?)
     ON CONFLICT (token, day) DO UPDATE SET amount = excluded.amount`,
  )
  const selectAll = db.prepare<[], { token: string; day: string; amount: string }>('SELECT token, day, amount FROM spend_totals')
  const selectDay = db.prepare<[string, string], { token: string; day: string; amount: string }>(
    'SELECT token, day, amount FROM spend_totals WHERE day = ? OR day = ?',
  )

  /** Adds (or, negative, takes back) an intent's spend on its day and in the total. */
  function addSpend(token: string, unixMs: number, amount: bigint): void {
    const day = utcDay(unixMs)
    let onDay = amount
    let total = amount
    for (const row of selectBoth.all(token, day)) {
      if (row.day === allDays) total += BigInt(row.amount)
      else onDay += BigInt(row.amount)
    }
    upsertBoth.run(token, day, toAmountText(onDay < 0n ? 0n : onDay), token, toAmountText(total < 0n ? 0n : total))
  }

  /** Every token's spend per day (only on the UTC day of `unixMs`, when given) and in total. */
  function spendTotals(unixMs?: number): Map<string, { byDay: Map<string, bigint>; total: bigint }> {
    const totals = new Map<string, { byDay: Map<string, bigint>; total: bigint }>()
    const rows = unixMs === undefined ? selectAll.all() : selectDay.all(utcDay(unixMs), allDays)
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
