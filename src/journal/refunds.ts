import type { Database } from 'better-sqlite3'
import { z } from 'zod'
import type { Clock } from '../time/clock.js'
import { JournalConflictError } from './journal-errors.js'
import { rethrowMissingOrder } from './order-events.js'
import { amountColumn, toAddress, toAmountText } from './sql-values.js'

export const refundRowSchema = z
  .object({
    id: z.number().int(),
    order_id: z.string(),
    tx_hash: z.string(),
    chain_id: z.number().int(),
    token: z.string(),
    amount: amountColumn,
    recorded_at: z.number().int(),
  })
  .transform((row) => ({
    orderId: row.order_id,
    txHash: row.tx_hash,
    chainId: row.chain_id,
    token: row.token,
    amount: row.amount,
    recordedAt: row.recorded_at,
  }))

export type JournalRefund = z.output<typeof refundRowSchema>

/** A crosschain bridge refund (API 2.2 `refunds[]`). */
export type RecordRefundParameters = { orderId: string; txHash: string; chainId: number; token: string; amount: bigint }

/** Statements over `refunds`; each function runs inside the caller's transaction. */
export function createRefundStatements(db: Database, clock: Clock) {
  const insert = db.prepare(
    `INSERT INTO refunds (order_id, tx_hash, chain_id, token, amount, recorded_at) VALUES (?, ?, ?, ?, ?, ?)
     ON CONFLICT (tx_hash) DO NOTHING`,
  )
  // A refund of a closed order is news for its strategy: the order is untold again (deliveries.ts).
  const markUntold = db.prepare<[string]>('UPDATE orders SET untold = 1 WHERE id = ? AND open = 0 AND untold = 0')
  const selectByTx = db.prepare('SELECT * FROM refunds WHERE tx_hash = ?')
  const selectOfOrder = db.prepare('SELECT * FROM refunds WHERE order_id = ? ORDER BY id')

  /** Stores a refund once per transaction hash; returns whether it was new. */
  function recordRefund(refund: RecordRefundParameters): boolean {
    const txHash = refund.txHash.toLowerCase()
    let changes: number
    try {
      ;({ changes } = insert.run(refund.orderId, txHash, refund.chainId, toAddress(refund.token), toAmountText(refund.amount), clock.now()))
    } catch (error) {
      throw rethrowMissingOrder(error, refund.orderId)
    }
    if (changes === 1) markUntold.run(refund.orderId)
    else {
      const stored = refundRowSchema.parse(selectByTx.get(txHash))
      if (stored.orderId !== refund.orderId) {
        throw new JournalConflictError('refund already recorded for another order', { txHash, storedOrderId: stored.orderId })
      }
    }
    return changes === 1
  }

  function refundsOf(orderId: string): JournalRefund[] {
    return selectOfOrder.all(orderId).map((row) => refundRowSchema.parse(row))
  }

  return { recordRefund, refundsOf }
}
