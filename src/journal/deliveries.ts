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

/** A row of the delivery queries: OrderDelivery with SQL's nulls for what was never delivered or filled. */
type DeliveryRow = Omit<OrderDelivery, 'lastFillId' | 'refunds' | 'fillsHead'> & {
  lastFillId: number | null
  refunds: number | null
  fillsHead: number | null
}

function toDelivery(row: DeliveryRow): OrderDelivery {
  return {
    orderId: row.orderId,
    status: row.status,
    lastFillId: row.lastFillId ?? 0,
    refunds: row.refunds ?? 0,
    orderStatus: row.orderStatus,
    fillsHead: row.fillsHead ?? 0,
    refundCount: row.refundCount,
    orderVenueId: row.orderVenueId,
    orderUpdatedAt: row.orderUpdatedAt,
  }
}

/** Statements over `order_deliveries`. Each function runs inside the caller's transaction. */
export function createDeliveryStatements(db: Database, clock: Clock) {
  // Orders of the strategy that may hold news: open, or closed with a status not yet delivered (never delivered
  // included), each read from its partial index (orders_open, orders_untold): the strategy's settled history is not read.
  const pendingColumns = `orders.id AS orderId, d.status AS status, d.last_fill_id AS lastFillId, d.refunds AS refunds,
       orders.status AS orderStatus, orders.fills_head AS fillsHead, orders.venue_id AS orderVenueId, orders.updated_at AS orderUpdatedAt,
       (SELECT count(*) FROM refunds WHERE refunds.order_id = orders.id) AS refundCount, orders.created_at AS createdAt
     FROM orders LEFT JOIN order_deliveries AS d ON d.order_id = orders.id`
  const selectPending = db.prepare<[string, string], DeliveryRow>(
    `SELECT ${pendingColumns} WHERE orders.strategy = ? AND orders.open = 1
     UNION ALL
     SELECT ${pendingColumns} WHERE orders.strategy = ? AND orders.untold = 1 AND orders.open = 0
     ORDER BY createdAt, orderId`,
  )
  // The orders of any strategy that a status change, a fill or a refund journaled between two points of the console's
  // event sequence touched (whatever wrote it: its triggers catch every writer), among those that may hold news as
  // above. Each event's row is found by its id; the orders by theirs.
  const selectTouched = db.prepare<[number, number], DeliveryRow & { strategy: string | null }>(
    `WITH touched (order_id) AS (
       SELECT CASE e.kind
           WHEN 'fill' THEN (SELECT order_id FROM fills WHERE fills.id = e.ref)
           WHEN 'order-status' THEN (SELECT order_id FROM order_status_history AS h WHERE h.id = e.ref)
           ELSE (SELECT order_id FROM refunds WHERE refunds.id = e.ref)
         END
       FROM console_events AS e
       WHERE e.id > ? AND e.id <= ? AND (e.kind = 'fill' OR e.kind = 'order-status' OR e.kind = 'refund')
     )
     SELECT orders.strategy AS strategy, ${pendingColumns}
     WHERE orders.id IN (SELECT order_id FROM touched) AND (orders.open = 1 OR orders.untold = 1)
     ORDER BY createdAt, orderId`,
  )
  // A closed order whose status, fills and refunds are all told leaves orders_untold (until its status changes again, or
  // a fill or a refund of it is journaled: order-events.ts, refunds.ts). Told its status, an order whose later fill or
  // refund is not yet told stays: that one is still to come, after a restart too.
  const markTold = db.prepare<[string]>(
    `UPDATE orders SET untold = 0
     WHERE id = ? AND untold = 1 AND EXISTS (
       SELECT 1 FROM order_deliveries AS d
       WHERE d.order_id = orders.id AND d.status IS orders.status AND d.last_fill_id >= coalesce(orders.fills_head, 0)
         AND d.refunds >= (SELECT count(*) FROM refunds WHERE refunds.order_id = orders.id)
     )`,
  )
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
    return selectPending.all(strategy, strategy).map(toDelivery)
  }

  /**
   * The orders, of every strategy, that the console events after `after` up to `upTo` (lastConsoleEventId) changed and
   * that may hold news, with what was delivered of each, in the order pendingDeliveries lists them: what a reader who
   * has looked at every order up to `after` need look at again.
   */
  function deliveriesTouched(after: number, upTo: number): (OrderDelivery & { strategy: string | null })[] {
    return selectTouched.all(after, upTo).map((row) => ({ ...toDelivery(row), strategy: row.strategy }))
  }

  /**
   * Records that a status, a fill (and those before it) or the first `refunds` refunds reached the strategy; a closed
   * order then told all of leaves the orders a tick reads.
   */
  function markDelivered(mark: MarkDeliveredParameters): void {
    upsert.run({
      orderId: mark.orderId,
      status: 'status' in mark ? mark.status : null,
      fillId: 'fillId' in mark ? mark.fillId : 0,
      refunds: 'refunds' in mark ? mark.refunds : 0,
      at: clock.now(),
    })
    markTold.run(mark.orderId)
  }

  return { pendingDeliveries, deliveriesTouched, markDelivered }
}
