import type { Database } from 'better-sqlite3'
import type { OrderMode } from '../domain/order-status.js'
import { chainSql } from './order-events.js'
import { readAmountText } from './sql-values.js'

export type OutstandingSourceParameters = { mode: OrderMode; chainId: number; token: string }

/**
 * What the open orders of a mode can still pull of a source token on a chain: each order's source amount less what its
 * fills spent. Reads the amounts of the matching open orders from the partial index of open orders, and the fills only
 * of those that have any; no order row is read whole.
 */
export function createOutstandingSourceQuery(db: Database) {
  const openWhere = 'FROM orders INDEXED BY orders_open WHERE open = 1 AND mode = ? AND chain_id = ? AND src_token = ?'
  // Each matching open order's amount, with its id only when it has fills (whose spend is then read).
  const selectOpen = db
    .prepare<[string, number, string], [string, string | null]>(
      `SELECT src_amount, CASE WHEN fills_head IS NULL THEN NULL ELSE id END ${openWhere}`,
    )
    .raw()
  const selectSpent = db.prepare<[string], string>(chainSql('fills', 'fills_head', { columns: 'spent_amount' })).pluck()

  return function outstandingSourceAmount({ mode, chainId, token }: OutstandingSourceParameters): bigint {
    let outstanding = 0n
    for (const [text, filledId] of selectOpen.all(mode, chainId, token.toLowerCase())) {
      const amount = readAmountText(text)
      if (filledId === null) {
        outstanding += amount
        continue
      }
      const spent = selectSpent.all(filledId).reduce((sum, spentText) => sum + readAmountText(spentText), 0n)
      if (amount > spent) outstanding += amount - spent
    }
    return outstanding
  }
}
