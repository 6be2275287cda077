import type { Journal } from '../journal/journal.js'
import type { FillEvent, OrderUpdateEvent, RefundEvent } from '../strategy/strategy-events.js'
import { toFillView, toOrderView, toRefundView } from './order-views.js'

/** An event for one strategy, read from the journal; `acknowledge()` once the strategy has handled it. */
export type StrategyOrderEvent = { strategy: string; acknowledge: () => void } & (
  | { type: 'orderUpdate'; event: OrderUpdateEvent }
  | { type: 'fill'; event: FillEvent }
  | { type: 'refund'; event: RefundEvent }
)

export type OrderEventTracker = {
  /**
   * Status changes, fills and refunds of the strategies' orders not yet delivered, in journal order. Durable: what a
   * previous run collected but never acknowledged comes again; what this run collected does not come twice.
   */
  collect: () => StrategyOrderEvent[]
}

/**
 * An order's fills and refunds come before its status change, so a strategy told an order is final already knows what
 * it spent and received. Tracks what was delivered to strategies in the journal (order_deliveries): the last status told of each order, the
 * last fill and how many refunds. Delivery is at least once: a crash between a handler and its acknowledgement delivers
 * that event again after the restart, which a strategy's intent keys make harmless (the same key and content is the
 * same intent, executed once). Orders already final and told are not read again.
 */
export function createOrderEventTracker(journal: Journal, strategies: readonly string[]): OrderEventTracker {
  // Collected by this run, acknowledged or not: keeps a pass from collecting again what a handler is still handling.
  const statuses = new Map<string, string>()
  const lastFillIds = new Map<string, number>()
  const refundCounts = new Map<string, number>()

  function collect(): StrategyOrderEvent[] {
    const events: StrategyOrderEvent[] = []
    for (const strategy of strategies) {
      for (const delivery of journal.pendingDeliveries(strategy)) {
        const { orderId } = delivery
        const lastFillId = Math.max(lastFillIds.get(orderId) ?? 0, delivery.lastFillId)
        const refundsTold = Math.max(refundCounts.get(orderId) ?? 0, delivery.refunds)
        const told = statuses.get(orderId) ?? delivery.status
        // Nothing new since it was last told or collected: the order is not read (most open orders, most ticks).
        if (delivery.fillsHead <= lastFillId && delivery.refundCount <= refundsTold && told === delivery.orderStatus) continue
        const order = journal.getOrder({ id: orderId })
        if (!order) continue
        let view: ReturnType<typeof toOrderView> | undefined
        const orderView = () => {
          view ??= toOrderView(order)
          return view
        }
        for (const fill of journal.fillsOf(order.id, lastFillId)) {
          lastFillIds.set(order.id, Math.max(lastFillIds.get(order.id) ?? 0, fill.id))
          events.push({
            strategy,
            type: 'fill',
            event: { order: orderView(), fill: toFillView(fill) },
            acknowledge: () => journal.markDelivered({ orderId: order.id, fillId: fill.id }),
          })
        }
        const refunds = delivery.refundCount > refundsTold ? journal.refundsOf(order.id) : []
        refunds.slice(refundsTold).forEach((refund, index) => {
          const count = refundsTold + index + 1
          refundCounts.set(order.id, count)
          events.push({
            strategy,
            type: 'refund',
            event: { order: orderView(), refund: toRefundView(refund) },
            acknowledge: () => journal.markDelivered({ orderId: order.id, refunds: count }),
          })
        })
        if (told !== order.status) {
          statuses.set(order.id, order.status)
          const reason = journal.orderHistory(order.id).at(-1)?.reason ?? null
          const status = order.status
          events.push({
            strategy,
            type: 'orderUpdate',
            event: { order: orderView(), reason },
            acknowledge: () => journal.markDelivered({ orderId: order.id, status }),
          })
        }
      }
    }
    return events
  }

  return { collect }
}
