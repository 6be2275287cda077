import type { Database } from 'better-sqlite3'
import { z } from 'zod'
import type { Clock } from '../time/clock.js'
import { JournalConflictError, JournalRecordNotFoundError } from './journal-errors.js'
import { isStatusOfMode, type OrderMode, type OrderStatus, orderStatusSchema } from './order-status.js'
import { amountColumn, toAmountText } from './sql-values.js'

export const statusHistoryRowSchema = z
  .object({ order_id: z.string(), seq: z.number().int(), status: orderStatusSchema, reason: z.string().nullable(), at: z.number().int() })
  .transform((row) => ({ orderId: row.order_id, status: row.status, reason: row.reason, at: row.at }))

export type OrderStatusChange = z.output<typeof statusHistoryRowSchema>

export const fillRowSchema = z
  .object({
    id: z.number().int(),
    order_id: z.string(),
    chain_id: z.number().int(),
    tx_hash: z.string(),
    log_index: z.number().int().nullable(),
    destination_chain_id: z.number().int().nullable(),
    destination_tx_hash: z.string().nullable(),
    spent_amount: amountColumn,
    received_amount: amountColumn,
    source: z.enum(['venue', 'chain', 'both']),
    block_number: z.number().int().nullable(),
    recorded_at: z.number().int(),
  })
  .transform((row) => ({
    id: row.id,
    orderId: row.order_id,
    chainId: row.chain_id,
    txHash: row.tx_hash,
    logIndex: row.log_index,
    /** Crosschain: the chain and transaction that delivered the output (null until delivered, and same-chain). */
    destinationChainId: row.destination_chain_id,
    destinationTxHash: row.destination_tx_hash,
    spentAmount: row.spent_amount,
    receivedAmount: row.received_amount,
    /** Where the fill was seen: the venue's transactions[], the chain's logs, or both. */
    source: row.source,
    blockNumber: row.block_number,
    recordedAt: row.recorded_at,
  }))

export type JournalFill = z.output<typeof fillRowSchema>

export type RecordStatusParameters = { orderId: string; status: OrderStatus; reason?: string }

export type RecordFillParameters = {
  orderId: string
  chainId: number
  txHash: string
  /** Known from chain logs; the venue's transactions[] does not carry it. */
  logIndex?: number
  /** Crosschain: where the output landed, once the bridge delivered. */
  destinationChainId?: number
  destinationTxHash?: string
  spentAmount: bigint
  receivedAmount: bigint
  source: 'venue' | 'chain'
  blockNumber?: number
}

/** Statements over `order_status_history` and `fills`; each function runs inside the caller's transaction. */
export function createOrderEventStatements(db: Database, clock: Clock) {
  const selectCurrent = db.prepare<[string], { mode: string; status: string }>('SELECT mode, status FROM orders WHERE id = ?')
  const updateStatus = db.prepare<[string, number, string, string], { mode: string; status_seq: number }>(
    'UPDATE orders SET status = ?, updated_at = ?, status_seq = status_seq + 1 WHERE id = ? AND status <> ? RETURNING mode, status_seq',
  )
  const insertHistory = db.prepare('INSERT INTO order_status_history (order_id, seq, status, reason, at) VALUES (?, ?, ?, ?, ?)')
  const selectHistory = db.prepare('SELECT * FROM order_status_history WHERE order_id = ? ORDER BY seq')
  const selectFillByLog = db.prepare('SELECT * FROM fills WHERE tx_hash = ? AND log_index = ?')
  const selectFillOfTx = db.prepare('SELECT * FROM fills WHERE tx_hash = ? AND order_id = ? ORDER BY id LIMIT 1')
  const selectVenueFillOfTx = db.prepare('SELECT * FROM fills WHERE tx_hash = ? AND order_id = ? AND log_index IS NULL')
  const insertFill = db.prepare(
    `INSERT INTO fills (order_id, chain_id, tx_hash, log_index, destination_chain_id, destination_tx_hash, spent_amount,
       received_amount, source, block_number, recorded_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (tx_hash, log_index) DO NOTHING`,
  )
  const mergeFill = db.prepare(
    `UPDATE fills SET source = 'both', log_index = coalesce(log_index, ?), block_number = coalesce(block_number, ?) WHERE id = ?`,
  )
  const setDestination = db.prepare(
    `UPDATE fills SET destination_chain_id = ?, destination_tx_hash = ? WHERE id = ? AND destination_tx_hash IS NULL`,
  )
  const selectFills = db.prepare('SELECT * FROM fills WHERE order_id = ? ORDER BY id')

  /**
   * Appends a status change; the order's current status again is a no-op. Returns whether anything changed.
   * Runs inside a transaction: a status foreign to the order's mode throws after the update, which rolls it back.
   */
  function recordStatus({ orderId, status, reason }: RecordStatusParameters): boolean {
    const now = clock.now()
    const changed = updateStatus.get(status, now, orderId, status)
    if (!changed) {
      if (!selectCurrent.get(orderId)) throw new JournalRecordNotFoundError({ kind: 'order', id: orderId })
      return false
    }
    if (!isStatusOfMode(changed.mode as OrderMode, status)) {
      throw new JournalConflictError(`status ${status} is not a status of a ${changed.mode} order`, { orderId, status })
    }
    insertHistory.run(orderId, changed.status_seq, status, reason ?? null, now)
    return true
  }

  function orderHistory(orderId: string): OrderStatusChange[] {
    return selectHistory.all(orderId).map((row) => statusHistoryRowSchema.parse(row))
  }

  /**
   * Stores one on-chain fill, unique by (tx hash, log index). The same fill seen from the venue (no log index) and
   * from the chain becomes one row with source `both`. Returns whether a new fill was stored.
   */
  function recordFill(fill: RecordFillParameters): boolean {
    const txHash = fill.txHash.toLowerCase()
    // The common path (a chain log never seen) is one partial-index probe and one insert.
    const seen = fill.logIndex === undefined ? selectFillOfTx.get(txHash, fill.orderId) : selectVenueFillOfTx.get(txHash, fill.orderId)
    if (seen !== undefined) return mergeSeenFill(fillRowSchema.parse(seen), fill)
    let changes: number
    try {
      ;({ changes } = insertFill.run(
        fill.orderId,
        fill.chainId,
        txHash,
        fill.logIndex ?? null,
        fill.destinationChainId ?? null,
        fill.destinationTxHash?.toLowerCase() ?? null,
        toAmountText(fill.spentAmount),
        toAmountText(fill.receivedAmount),
        fill.source,
        fill.blockNumber ?? null,
        clock.now(),
      ))
    } catch (error) {
      throw rethrowMissingOrder(error, fill.orderId)
    }
    if (changes === 1) return true
    return mergeSeenFill(fillRowSchema.parse(selectFillByLog.get(txHash, fill.logIndex)), fill)
  }

  /** The fill is already stored: a second source turns it into `both`; another order's fill is a conflict. */
  function mergeSeenFill(stored: JournalFill, fill: RecordFillParameters): false {
    if (stored.orderId !== fill.orderId) {
      throw new JournalConflictError('fill already recorded for another order', {
        txHash: stored.txHash,
        logIndex: fill.logIndex,
        storedOrderId: stored.orderId,
      })
    }
    if (stored.source !== 'both' && stored.source !== fill.source) mergeFill.run(fill.logIndex ?? null, fill.blockNumber ?? null, stored.id)
    // A crosschain fill is first seen on the source chain; the delivery on the destination chain comes later.
    if (stored.destinationTxHash === null && fill.destinationTxHash !== undefined) {
      setDestination.run(fill.destinationChainId ?? null, fill.destinationTxHash.toLowerCase(), stored.id)
    }
    return false
  }

  function fillsOf(orderId: string): JournalFill[] {
    return selectFills.all(orderId).map((row) => fillRowSchema.parse(row))
  }

  return { recordStatus, orderHistory, recordFill, fillsOf }
}

/** A foreign-key failure on an order id means the order was never recorded. */
export function rethrowMissingOrder(error: unknown, orderId: string): unknown {
  if (error instanceof Error && 'code' in error && error.code === 'SQLITE_CONSTRAINT_FOREIGNKEY') {
    return new JournalRecordNotFoundError({ kind: 'order', id: orderId })
  }
  return error
}
