import type { Database, Statement } from 'better-sqlite3'
import { z } from 'zod'
import { type OrderMode, type OrderStatus, orderModes, orderStatusSchema, signedStatus } from '../domain/order-status.js'
import type { Clock } from '../time/clock.js'
import { JournalConflictError, JournalRecordNotFoundError } from './journal-errors.js'
import { amountColumn, flagColumn, jsonColumn, toAddress, toAmountText, toJsonText } from './sql-values.js'

export const orderRowSchema = z
  .object({
    id: z.string(),
    intent_id: z.string(),
    mode: z.enum(orderModes),
    account: z.string(),
    beneficiary: z.string(),
    chain_id: z.number().int(),
    dest_chain_id: z.number().int(),
    venue_id: z.string().nullable(),
    order_hash: z.string().nullable(),
    nonce: amountColumn.nullable(),
    deadline: z.number().int().nullable(),
    src_token: z.string(),
    dest_token: z.string(),
    src_amount: amountColumn,
    dest_amount: amountColumn,
    side: z.enum(['SELL', 'BUY']),
    status: orderStatusSchema,
    status_seq: z.number().int(),
    signed_payload: jsonColumn,
    submitted: flagColumn,
    submitted_at: z.number().int().nullable(),
    created_at: z.number().int(),
    updated_at: z.number().int(),
  })
  .transform((row) => ({
    id: row.id,
    intentId: row.intent_id,
    mode: row.mode,
    /** The signer: Delta owner, Market sender, OTC maker (lowercase). */
    account: row.account,
    beneficiary: row.beneficiary,
    chainId: row.chain_id,
    destChainId: row.dest_chain_id,
    venueId: row.venue_id,
    orderHash: row.order_hash,
    nonce: row.nonce,
    /** Unix seconds, as the signed order carries it. */
    deadline: row.deadline,
    srcToken: row.src_token,
    destToken: row.dest_token,
    srcAmount: row.src_amount,
    destAmount: row.dest_amount,
    side: row.side,
    status: row.status,
    signedPayload: row.signed_payload,
    submitted: row.submitted,
    submittedAt: row.submitted_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  }))

export type JournalOrder = z.output<typeof orderRowSchema>

export type RecordSignedOrderParameters = {
  /** Local id, derived deterministically from the intent (for example intent id + slice index). */
  id: string
  intentId: string
  mode: OrderMode
  /** The signer: Delta owner, Market sender, OTC maker. */
  account: string
  /** Who receives the output; defaults to `account`. */
  beneficiary?: string
  chainId: number
  /** Defaults to `chainId` (same-chain order). */
  destChainId?: number
  orderHash?: string
  nonce?: bigint
  /** Unix seconds. */
  deadline?: number
  srcToken: string
  destToken: string
  srcAmount: bigint
  destAmount: bigint
  side: 'SELL' | 'BUY'
  /** The signed order and its signature (Delta, OTC) or the transaction envelope (Market), exactly as it will be sent. */
  signedPayload: unknown
}

export type OrderKey = { id: string } | { venueId: string } | { orderHash: string }

export type ListOrdersParameters = { status?: OrderStatus; strategy?: string; mode?: OrderMode; limit?: number }

/** Statements over `orders`; each function runs inside the caller's transaction. */
export function createOrderStatements(db: Database, clock: Clock) {
  const insert = db.prepare(
    `INSERT INTO orders (id, intent_id, mode, account, beneficiary, chain_id, dest_chain_id, order_hash, nonce, deadline, src_token,
       dest_token, src_amount, dest_amount, side, status, signed_payload, created_at, updated_at, strategy)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, (SELECT strategy FROM intents WHERE id = ?))
     ON CONFLICT (id) DO NOTHING`,
  )
  const insertHistory = db.prepare('INSERT INTO order_status_history (order_id, seq, status, reason, at) VALUES (?, 0, ?, ?, ?)')
  const setHistoryHead = db.prepare('UPDATE orders SET history_head = ? WHERE id = ?')
  const selectById = db.prepare('SELECT * FROM orders WHERE id = ?')
  const selectByVenueId = db.prepare('SELECT * FROM orders WHERE venue_id = ?')
  const selectByHash = db.prepare('SELECT * FROM orders WHERE order_hash = ?')
  const selectIdByHash = db.prepare<[string], string>('SELECT id FROM orders WHERE order_hash = ?').pluck()
  const updateSubmitted = db.prepare(
    `UPDATE orders SET submitted = 1, submitted_at = coalesce(submitted_at, ?), venue_id = coalesce(venue_id, ?), updated_at = ?
     WHERE id = ?`,
  )
  // `open` is kept with the status (cleared once, when the order reaches a final status of its mode).
  const selectOpen = db.prepare('SELECT * FROM orders INDEXED BY orders_open WHERE open = 1 ORDER BY created_at, id')
  const selectInFlight = db.prepare('SELECT * FROM orders INDEXED BY orders_open WHERE open = 1 AND submitted = 0 ORDER BY created_at, id')
  const listStatements = new Map<string, Statement>()

  function getOrder(key: OrderKey): JournalOrder | undefined {
    const row = 'id' in key ? selectById.get(key.id) : 'venueId' in key ? selectByVenueId.get(key.venueId) : selectByHash.get(key.orderHash)
    return row === undefined ? undefined : orderRowSchema.parse(row)
  }

  function requireOrder(id: string): JournalOrder {
    const order = getOrder({ id })
    if (!order) throw new JournalRecordNotFoundError({ kind: 'order', id })
    return order
  }

  /** Writes the signed order BEFORE it is submitted; a local id already stored is success and returns the stored row. */
  function recordSignedOrder(order: RecordSignedOrderParameters): JournalOrder {
    const orderHash = order.orderHash?.toLowerCase() ?? null
    const now = clock.now()
    const row: Omit<JournalOrder, 'signedPayload'> = {
      id: order.id,
      intentId: order.intentId,
      mode: order.mode,
      account: toAddress(order.account),
      beneficiary: toAddress(order.beneficiary ?? order.account),
      chainId: order.chainId,
      destChainId: order.destChainId ?? order.chainId,
      venueId: null,
      orderHash,
      nonce: order.nonce ?? null,
      deadline: order.deadline ?? null,
      srcToken: toAddress(order.srcToken),
      destToken: toAddress(order.destToken),
      srcAmount: order.srcAmount,
      destAmount: order.destAmount,
      side: order.side,
      status: signedStatus,
      submitted: false,
      submittedAt: null,
      createdAt: now,
      updatedAt: now,
    }
    const payloadJson = toJsonText(order.signedPayload)
    let changes: number
    try {
      ;({ changes } = insert.run(
        row.id,
        row.intentId,
        row.mode,
        row.account,
        row.beneficiary,
        row.chainId,
        row.destChainId,
        orderHash,
        row.nonce === null ? null : toAmountText(row.nonce),
        row.deadline,
        row.srcToken,
        row.destToken,
        toAmountText(row.srcAmount),
        toAmountText(row.destAmount),
        row.side,
        signedStatus,
        payloadJson,
        now,
        now,
        // the intent's strategy, copied into the order
        order.intentId,
      ))
    } catch (error) {
      const code = error instanceof Error && 'code' in error ? error.code : undefined
      // The only foreign key of an order is its intent: recordIntent must come first.
      if (code === 'SQLITE_CONSTRAINT_FOREIGNKEY') throw new JournalRecordNotFoundError({ kind: 'intent', id: order.intentId })
      // A stored id is the upsert's conflict (nothing inserted); another unique key held by another row is the order hash.
      const holder = code === 'SQLITE_CONSTRAINT_UNIQUE' && orderHash !== null ? selectIdByHash.get(orderHash) : undefined
      if (holder !== undefined && holder !== order.id) {
        throw new JournalConflictError('order hash already recorded under another local id', { orderHash, storedId: holder, id: order.id })
      }
      throw error
    }
    if (changes === 0) return requireOrder(order.id)
    setHistoryHead.run(insertHistory.run(order.id, signedStatus, 'signed', now).lastInsertRowid, order.id)
    // The row just inserted, as getOrder would read it back (the table's STRICT types and checks accepted every value).
    return { ...row, signedPayload: JSON.parse(payloadJson) }
  }

  /** The venue accepted the order (Delta: with its uuid). Repeating it keeps the first time; a different venue id is a conflict. */
  function markSubmitted(id: string, { venueId }: { venueId?: string } = {}): JournalOrder {
    const stored = requireOrder(id)
    if (venueId !== undefined && stored.venueId !== null && stored.venueId !== venueId) {
      throw new JournalConflictError('order already submitted under another venue id', { id, storedVenueId: stored.venueId, venueId })
    }
    if (stored.submitted && (venueId === undefined || stored.venueId === venueId)) return stored
    const now = clock.now()
    updateSubmitted.run(now, venueId ?? null, now, id)
    // As the update leaves it: the first submission time and venue id stand.
    return {
      ...stored,
      submitted: true,
      submittedAt: stored.submittedAt ?? now,
      venueId: stored.venueId ?? venueId ?? null,
      updatedAt: now,
    }
  }

  function listOrders({ status, strategy, mode, limit }: ListOrdersParameters = {}): JournalOrder[] {
    const filters: [string, string | undefined][] = [
      ['orders.status = ?', status],
      ['intents.strategy = ?', strategy],
      ['orders.mode = ?', mode],
    ]
    const conditions = filters.filter(([, value]) => value !== undefined).map(([condition]) => condition)
    const values: (string | number)[] = filters.flatMap(([, value]) => (value === undefined ? [] : [value]))
    if (limit !== undefined) values.push(limit)
    const sql = `SELECT orders.* FROM orders JOIN intents ON intents.id = orders.intent_id
      ${conditions.length > 0 ? `WHERE ${conditions.join(' AND ')}` : ''} ORDER BY orders.created_at, orders.id
      ${limit !== undefined ? 'LIMIT ?' : ''}`
    let statement = listStatements.get(sql)
    if (!statement) {
      statement = db.prepare(sql)
      listStatements.set(sql, statement)
    }
    return statement.all(...values).map((row) => orderRowSchema.parse(row))
  }

  /** Orders not in a final status of their mode. */
  function openOrders(): JournalOrder[] {
    return selectOpen.all().map((row) => orderRowSchema.parse(row))
  }

  /** Signed but not known to be submitted, and not settled otherwise: what startup recovery must resolve with the venue. */
  function inFlightOrders(): JournalOrder[] {
    return selectInFlight.all().map((row) => orderRowSchema.parse(row))
  }

  return { getOrder, requireOrder, recordSignedOrder, markSubmitted, listOrders, openOrders, inFlightOrders }
}
