import type { Database } from 'better-sqlite3'
import type { OrderMode } from '../domain/order-status.js'
import { chainSql } from './order-events.js'
import { amountColumn } from './sql-values.js'

export type OutstandingSourceParameters = { mode: OrderMode; chainId: number; token: string }

/**
 * What the open orders of a mode can still pull of a source token on a chain: each order's source amount less what its
 * fills spent. Reads the amounts of the matching open orders from the partial index of open orders, and the fills only
 * of those that have any; no order row is read whole.
 */
export function createOutstandingSourceQuery(db: Database) {
  const openWhere = 'FROM orders INDEXED BY orders_open WHERE open = 1 AND mode = ? AND chain_id = ? AND src_token = ?'
  const selectUnfilled = db.prepare<[string, number, string], string>(`SELECT src_amount ${openWhere} AND fills_head IS NULL`).pluck()
  const selectFilled = db.prepare<[string, number, string], { id: string; src_amount: string }>(
    `SELECT id, src_amount ${openWhere} AND fills_head IS NOT NULL`,
  )
  const selectSpent = db.prepare<[string], string>(chainSql('fills', 'fills_head', { columns: 'spent_amount' })).pluck()

  return function outstandingSourceAmount({ mode, chainId, token }: OutstandingSourceParameters): bigint {
    const key = [mode, chainId, token.toLowerCase()] as const
    let outstanding = 0n
    for (const amount of selectUnfilled.all(...key)) outstanding += amountColumn.parse(amount)
    for (const order of selectFilled.all(...key)) {
      const amount = amountColumn.parse(order.src_amount)
      const spent = selectSpent.all(order.id).reduce((sum, text) => sum + amountColumn.parse(text), 0n)
      if (amount > spent) outstanding += amount - spent
    }
    return outstanding
  }
}
