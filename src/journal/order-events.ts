import type { Database } from 'better-sqlite3'
import { z } from 'zod'
import { isFinalStatus, isStatusOfMode, type OrderMode, type OrderStatus, orderStatusSchema } from '../domain/order-status.js'
import type { Clock } from '../time/clock.js'
import { JournalConflictError, JournalRecordNotFoundError, JournalValueError } from './journal-errors.js'
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

/** One entry of `appendOrderEvents`: a status change or a fill. */
export type OrderEvent = ({ type: 'status' } & RecordStatusParameters) | ({ type: 'fill' } & RecordFillParameters)

/**
 * What a batch knows of an order while it applies the batch's changes: its status and the heads of its chains of
 * status changes and fills (ids of the latest rows, each row naming the one before).
 */
type OrderState = {
  mode: OrderMode
  status: string
  seq: number
  historyHead: number | null
  fillsHead: number | null
  statusChanged: boolean
  fillsChanged: boolean
}

/** The columns a repeated fill needs to merge into the stored row. */
type StoredFill = { id: number; order_id: string; tx_hash: string; source: string; destination_tx_hash: string | null }

const txHashPattern = /^0x[0-9a-f]{64}$/

/** The 32 bytes fills are keyed by (`unhex(substr(tx_hash, 3))` in SQL); refuses anything but 0x and 64 hex digits. */
function txKey(txHash: string): Buffer {
  if (!txHashPattern.test(txHash)) throw new JournalValueError('a fill needs a transaction hash of 0x and 64 hex digits', { txHash })
  return Buffer.from(txHash.slice(2), 'hex')
}

/** A fill's transaction and order as one key (a transaction hash holds no '/'). */
function fillKey(txHash: string, orderId: string): string {
  return `${txHash}/${orderId}`
}

/**
 * `columns` (default: all) of the rows of `table` on the chain that starts at the order's `head` column and follows
 * `previous_id` (always a smaller id, which also bounds the walk), in `orderBy` order when given. CROSS JOIN keeps the
 * chain the outer loop, so each row is sought by its id: with a plain JOIN the planner scans the whole table against
 * the chain, a read that grows with every order's rows.
 */
export function chainSql(
  table: string,
  head: string,
  { columns = `${table}.*`, orderBy }: { columns?: string; orderBy?: string } = {},
): string {
  return `WITH RECURSIVE chain (id) AS (
      SELECT ${head} FROM orders WHERE id = ?
      UNION ALL
      SELECT previous_id FROM ${table} JOIN chain USING (id) WHERE previous_id < id
    )
    SELECT ${columns} FROM chain CROSS JOIN ${table} USING (id)${orderBy === undefined ? '' : ` ORDER BY ${orderBy}`}`
}

/** Statements over `order_status_history` and `fills`; each function runs inside the caller's transaction. */
export function createOrderEventStatements(db: Database, clock: Clock) {
  // Joins walk the JSON list and seek each key; `IN (SELECT ... json_each)` would first build a temporary index of it.
  const selectStates = db
    .prepare<[string], [string, OrderMode, string, number, number | null, number | null]>(
      `SELECT orders.id, mode, status, status_seq, history_head, fills_head
       FROM json_each(?) AS ids JOIN orders ON orders.id = ids.value`,
    )
    .raw()
  // A closed order whose status changes or that has a new fill has news for its strategy again (deliveries.ts).
  const newsIfClosed = 'untold = CASE WHEN open = 0 THEN 1 ELSE untold END'
  const updateStatus = db.prepare<[string, number, number | null, number | null, number, string]>(
    `UPDATE orders SET status = ?, status_seq = ?, history_head = ?, fills_head = ?, updated_at = ?, ${newsIfClosed} WHERE id = ?`,
  )
  const updateFillsHead = db.prepare<[number | null, string]>(`UPDATE orders SET fills_head = ?, ${newsIfClosed} WHERE id = ?`)
  // A separate statement, run once per order: the index of open orders is touched only when an order closes.
  const closeOrder = db.prepare<[string]>('UPDATE orders SET open = 0, untold = 1 WHERE id = ? AND open = 1')
  const insertHistory = db.prepare<[string, number, string, string | null, number, number | null]>(
    'INSERT INTO order_status_history (order_id, seq, status, reason, at, previous_id) VALUES (?, ?, ?, ?, ?, ?)',
  )
  const selectHistory = db.prepare(chainSql('order_status_history', 'history_head', { orderBy: 'seq' }))
  const selectLatestChange = db.prepare(
    'SELECT h.* FROM orders CROSS JOIN order_status_history AS h ON h.id = orders.history_head WHERE orders.id = ?',
  )
  const selectVenueFillsOfTxs = db.prepare<[string], { tx_hash: string; order_id: string }>(
    // The partial index holds only the venue rows: a few pages, where the unique index would cost a descent per hash.
    `SELECT tx_hash, order_id FROM json_each(?) AS hashes JOIN fills INDEXED BY fills_by_tx_without_log
       ON unhex(substr(tx_hash, 3)) = unhex(substr(hashes.value, 3))
     WHERE log_index IS NULL`,
  )
  const insertFill = db.prepare(
    `INSERT INTO fills (order_id, chain_id, tx_hash, log_index, destination_chain_id, destination_tx_hash, spent_amount,
       received_amount, source, block_number, recorded_at, previous_id)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
  )
  const storedColumns = 'id, order_id, tx_hash, source, destination_tx_hash'
  const byTx = 'unhex(substr(tx_hash, 3)) = ?'
  const selectFillByLog = db.prepare<[Buffer, number], StoredFill>(`SELECT ${storedColumns} FROM fills WHERE ${byTx} AND log_index = ?`)
  const selectFillOfTx = db.prepare<[Buffer, string], StoredFill>(
    `SELECT ${storedColumns} FROM fills WHERE id = (SELECT min(id) FROM fills WHERE ${byTx} AND order_id = ?)`,
  )
  const selectVenueFillOfTx = db.prepare<[Buffer, string], StoredFill>(
    `SELECT ${storedColumns} FROM fills WHERE ${byTx} AND order_id = ? AND log_index IS NULL`,
  )
  const selectAnyVenueFillOfTx = db.prepare<[Buffer], StoredFill>(`SELECT ${storedColumns} FROM fills WHERE ${byTx} AND log_index IS NULL`)
  const mergeFill = db.prepare(
    `UPDATE fills SET source = 'both', log_index = coalesce(log_index, ?), block_number = coalesce(block_number, ?) WHERE id = ?`,
  )
  const setDestination = db.prepare(
    `UPDATE fills SET destination_chain_id = ?, destination_tx_hash = ? WHERE id = ? AND destination_tx_hash IS NULL`,
  )
  const selectFills = db.prepare(chainSql('fills', 'fills_head', { orderBy: 'id' }))
  // The chain from the head down to the first fill at or below `after` (ids fall along it), not included.
  const selectFillsAfter = db.prepare<[string, number, number]>(
    `WITH RECURSIVE chain (id) AS (
      SELECT fills_head FROM orders WHERE id = ? AND fills_head > ?
      UNION ALL
      SELECT previous_id FROM fills JOIN chain USING (id) WHERE previous_id < id AND previous_id > ?
    )
    SELECT fills.* FROM chain CROSS JOIN fills USING (id) ORDER BY id`,
  )

  /**
   * Applies status changes and fills in order, all stamped with one time. Every order the batch names is read once,
   * and an unknown one refused here (so the caller may run the batch without SQLite's per-row foreign-key lookups);
   * statuses are checked against the order's mode in memory; each order row is written once, at the end; a new fill
   * is one insert. Returns how many events changed something.
   */
  function appendOrderEvents(batch: readonly OrderEvent[]): number {
    const now = clock.now()
    const states = readOrderStates(batch)
    const venueFills = readVenueFills(batch)
    let changed = 0
    for (const event of batch) {
      const state = states.get(event.orderId)
      if (!state) throw new JournalRecordNotFoundError({ kind: 'order', id: event.orderId })
      if (event.type === 'status' ? applyStatus(state, event, now) : writeFill(state, event, now, venueFills)) changed++
    }
    for (const [orderId, state] of states) {
      if (state.statusChanged) {
        updateStatus.run(state.status, state.seq, state.historyHead, state.fillsHead, now, orderId)
        if (isFinalStatus(state.mode, state.status)) closeOrder.run(orderId)
      } else if (state.fillsChanged) updateFillsHead.run(state.fillsHead, orderId)
    }
    return changed
  }

  /** The mode, status and chain heads of every order the batch names, in one query. */
  function readOrderStates(batch: readonly OrderEvent[]): Map<string, OrderState> {
    const ids = new Set<string>()
    for (const event of batch) ids.add(event.orderId)
    const states = new Map<string, OrderState>()
    if (ids.size === 0) return states
    for (const [id, mode, status, seq, historyHead, fillsHead] of selectStates.all(JSON.stringify([...ids]))) {
      states.set(id, { mode, status, seq, historyHead, fillsHead, statusChanged: false, fillsChanged: false })
    }
    return states
  }

  /**
   * Which (transaction, order) pairs of the batch's chain logs have a venue row they must merge into, in one query.
   * Rare: the batch's chain logs that have none are inserted without a probe each.
   */
  function readVenueFills(batch: readonly OrderEvent[]): Set<string> {
    const txHashes = new Set<string>()
    for (const event of batch) if (event.type === 'fill' && event.logIndex !== undefined) txHashes.add(event.txHash.toLowerCase())
    const venueFills = new Set<string>()
    if (txHashes.size === 0) return venueFills
    for (const row of selectVenueFillsOfTxs.all(JSON.stringify([...txHashes]))) venueFills.add(fillKey(row.tx_hash, row.order_id))
    return venueFills
  }

  /** Appends a status change; the order's current status again is a no-op. A status foreign to the order's mode throws. */
  function applyStatus(state: OrderState, { orderId, status, reason }: RecordStatusParameters, now: number): boolean {
    if (state.status === status) return false
    if (!isStatusOfMode(state.mode, status)) {
      throw new JournalConflictError(`status ${status} is not a status of a ${state.mode} order`, { orderId, status })
    }
    state.seq++
    state.status = status
    state.statusChanged = true
    state.historyHead = Number(insertHistory.run(orderId, state.seq, status, reason ?? null, now, state.historyHead).lastInsertRowid)
    return true
  }

  /** Appends a status change; the order's current status again is a no-op. Returns whether anything changed. */
  function recordStatus(change: RecordStatusParameters): boolean {
    return appendOrderEvents([{ type: 'status', ...change }]) === 1
  }

  function orderHistory(orderId: string): OrderStatusChange[] {
    return selectHistory.all(orderId).map((row) => statusHistoryRowSchema.parse(row))
  }

  /** The order's last status change (its history's head, one row however long the history), or undefined for none. */
  function latestStatusChange(orderId: string): OrderStatusChange | undefined {
    const row = selectLatestChange.get(orderId)
    return row === undefined ? undefined : statusHistoryRowSchema.parse(row)
  }

  /**
   * Stores one on-chain fill, unique by (tx hash, log index). The same fill seen from the venue (no log index) and
   * from the chain becomes one row with source `both`. Returns whether a new fill was stored.
   */
  function recordFill(fill: RecordFillParameters): boolean {
    return appendOrderEvents([{ type: 'fill', ...fill }]) === 1
  }

  /**
   * `venueFills`: the (transaction, order) pairs of the batch that may have a venue row; a chain log outside it skips
   * the probe. The batch adds the venue rows it inserts.
   */
  function writeFill(state: OrderState, fill: RecordFillParameters, now: number, venueFills: Set<string>): boolean {
    const txHash = fill.txHash.toLowerCase()
    const key = txKey(txHash)
    if (fill.logIndex === undefined) {
      const seen = selectFillOfTx.get(key, fill.orderId)
      if (seen) return mergeSeenFill(seen, fill)
    } else if (venueFills.size > 0 && venueFills.has(fillKey(txHash, fill.orderId))) {
      const seen = selectVenueFillOfTx.get(key, fill.orderId)
      if (seen) return mergeSeenFill(seen, fill)
    }
    let inserted: { changes: number; lastInsertRowid: number | bigint }
    try {
      inserted = insertFill.run(
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
        now,
        state.fillsHead,
      )
    } catch (error) {
      throw rethrowMissingOrder(error, fill.orderId)
    }
    if (inserted.changes === 1) {
      state.fillsHead = Number(inserted.lastInsertRowid)
      state.fillsChanged = true
      if (fill.logIndex === undefined) venueFills.add(fillKey(txHash, fill.orderId))
      return true
    }
    // The chain log is stored already, or the transaction's venue row belongs to another order.
    const stored = fill.logIndex === undefined ? selectAnyVenueFillOfTx.get(key) : selectFillByLog.get(key, fill.logIndex)
    if (!stored) throw new JournalConflictError('fill neither stored nor found', { orderId: fill.orderId, txHash, logIndex: fill.logIndex })
    return mergeSeenFill(stored, fill)
  }

  /** The fill is already stored: a second source turns it into `both`; another order's fill is a conflict. */
  function mergeSeenFill(stored: StoredFill, fill: RecordFillParameters): false {
    if (stored.order_id !== fill.orderId) {
      throw new JournalConflictError('fill already recorded for another order', {
        txHash: stored.tx_hash,
        logIndex: fill.logIndex,
        storedOrderId: stored.order_id,
      })
    }
    if (stored.source !== 'both' && stored.source !== fill.source) mergeFill.run(fill.logIndex ?? null, fill.blockNumber ?? null, stored.id)
    // A crosschain fill is first seen on the source chain; the delivery on the destination chain comes later.
    if (stored.destination_tx_hash === null && fill.destinationTxHash !== undefined) {
      setDestination.run(fill.destinationChainId ?? null, fill.destinationTxHash.toLowerCase(), stored.id)
    }
    return false
  }

  /** The order's fills in the order they were recorded; with `after`, only those of a higher id (recorded later). */
  function fillsOf(orderId: string, after?: number): JournalFill[] {
    const rows = after === undefined ? selectFills.all(orderId) : selectFillsAfter.all(orderId, after, after)
    return rows.map((row) => fillRowSchema.parse(row))
  }

  return { appendOrderEvents, recordStatus, orderHistory, latestStatusChange, recordFill, fillsOf }
}

/** A foreign-key failure on an order id means the order was never recorded. */
export function rethrowMissingOrder(error: unknown, orderId: string): unknown {
  if (error instanceof Error && 'code' in error && error.code === 'SQLITE_CONSTRAINT_FOREIGNKEY') {
    return new JournalRecordNotFoundError({ kind: 'order', id: orderId })
  }
  return error
}
