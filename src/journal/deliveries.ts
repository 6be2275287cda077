import type { Database } from 'better-sqlite3'
import type { Clock } from '../time/clock.js'

/**
 * What a strategy was last told about one of its orders (`status`, `lastFillId`, `refunds`), beside where the order
 * stands (`orderStatus`, its last fill `fillsHead`, `refundCount`): an order whose figures match what was told has no
 * news, and need not be read.
 */
export type OrderDelivery = {
  orderId: string
  status: string | null
  lastFillId: number
  refunds: number
  orderStatus: string
  fillsHead: number
  refundCount: number
  /** With orderStatus, the order's fields that change after it is recorded: what its view is made of besides. */
  orderVenueId: string | null
  orderUpdatedAt: number
}

export type MarkDeliveredParameters =
  | { orderId: string; status: string }
  | { orderId: string; fillId: number }
  | { orderId: string; refunds: number }

/** Statements over `order_deliveries`. Each function runs inside the caller's transaction. */
export function createDeliveryStatements(db: Database, clock: Clock) {
  // Orders of the strategy that may hold news: open, or closed with a status not yet delivered (never delivered
  // included), each read from its partial index (orders_open, orders_untold): the strategy's settled history is not read.
  const pendingColumns = `orders.id AS orderId, d.status AS status, d.last_fill_id AS lastFillId, d.refunds AS refunds,
       orders.status AS orderStatus, orders.fills_head AS fillsHead, orders.venue_id AS orderVenueId, orders.updated_at AS orderUpdatedAt,
       (SELECT count(*) FROM refunds WHERE refunds.order_id = orders.id) AS refundCount, orders.created_at AS createdAt
     FROM orders LEFT JOIN order_deliveries AS d ON d.order_id = orders.id`
  const selectPending = db.prepare<
    [string, string],
    {
      orderId: string
      status: string | null
      lastFillId: number | null
      refunds: number | null
      orderStatus: string
      fillsHead: number | null
      refundCount: number
      orderVenueId: string | null
      orderUpdatedAt: number
    }
  >(
    `SELECT ${pendingColumns} WHERE orders.strategy = ? AND orders.open = 1
     UNION ALL
     SELECT ${pendingColumns} WHERE orders.strategy = ? AND orders.untold = 1 AND orders.open = 0
     ORDER BY createdAt, orderId`,
  )
  // The order's status is told: it leaves orders_untold (until its status changes again).
  const markTold = db.prepare<[string, string]>('UPDATE orders SET untold = 0 WHERE id = ? AND untold = 1 AND status = ?')
  const upsert = db.prepare(
    `INSERT INTO order_deliveries (order_id, status, last_fill_id, refunds, updated_at) VALUES (@orderId, @status, @fillId, @refunds, @at)
     ON CONFLICT (order_id) DO UPDATE SET
       status = coalesce(@status, status),
       last_fill_id = max(last_fill_id, @fillId),
       refunds = max(refunds, @refunds),
       updated_at = @at`,
  )

  /** The strategy's orders that may have undelivered status changes, fills or refunds, with what was delivered. */
  function pendingDeliveries(strategy: string): OrderDelivery[] {
    return selectPending.all(strategy, strategy).map((row) => ({
      orderId: row.orderId,
      status: row.status,
      lastFillId: row.lastFillId ?? 0,
      refunds: row.refunds ?? 0,
      orderStatus: row.orderStatus,
      fillsHead: row.fillsHead ?? 0,
      refundCount: row.refundCount,
      orderVenueId: row.orderVenueId,
      orderUpdatedAt: row.orderUpdatedAt,
    }))
  }

  /** Records that a status, a fill (and those before it) or the first `refunds` refunds reached the strategy. */
  function markDelivered(mark: MarkDeliveredParameters): void {
    upsert.run({
      orderId: mark.orderId,
      status: 'status' in mark ? mark.status : null,
      fillId: 'fillId' in mark ? mark.fillId : 0,
      refunds: 'refunds' in mark ? mark.refunds : 0,
      at: clock.now(),
    })
    if ('status' in mark) markTold.run(mark.orderId, mark.status)
  }

  return { pendingDeliveries, markDelivered }
}
