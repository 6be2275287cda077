import { isFinalStatus } from '../domain/order-status.js'
import type { OrderView } from '../domain/order-views.js'
import type { OrderDelivery } from '../journal/deliveries.js'
import type { Journal } from '../journal/journal.js'
import { deepFreeze } from '../strategy/frozen-copy.js'
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
 * same intent, executed once). Orders already final and told are not read again until a fill or a refund of them is
 * journaled (a late chain log, a refund after REFUNDED): that one is delivered, the final status is not told twice.
 * After the first pass only the orders that a status change, a fill or a refund journaled since the last pass touched
 * are looked at.
 */
export function createOrderEventTracker(journal: Journal, strategies: readonly string[]): OrderEventTracker {
  // Collected by this run, acknowledged or not: keeps a pass from collecting again what a handler is still handling.
  const statuses = new Map<string, string>()
  const lastFillIds = new Map<string, number>()
  const refundCounts = new Map<string, number>()
  /**
   * The view last made of each order not yet final, with what it was made of among the fields that change (status,
   * venue id, update time; the rest is fixed when the order is recorded): an order whose fields are as they were is
   * not read again for its next fill. Views are deeply frozen, so every event may share them.
   */
  const views = new Map<string, { version: string; view: OrderView }>()
  /**
   * The console event (journal.lastConsoleEventId) up to which every order has been looked at; undefined before the
   * first pass. A status change, a fill and a refund each add one (the journal's triggers, whatever writes them), so
   * a later pass looks only at the orders the events after it touched, and a tick with none reads nothing more.
   */
  let lookedUpTo: number | undefined

  /** Per strategy, in the strategies' order, the orders to look at: every pending one at first, then those touched. */
  function deliveriesToLookAt(): Iterable<[string, readonly OrderDelivery[]]> {
    const upTo = journal.lastConsoleEventId()
    const after = lookedUpTo
    lookedUpTo = upTo
    // Read before the orders: an event journaled meanwhile is looked at again on the next pass, which tells nothing twice.
    if (after === undefined) return strategies.map((strategy) => [strategy, journal.pendingDeliveries(strategy)])
    if (after === upTo) return []
    const touched = new Map<string, OrderDelivery[]>()
    for (const strategy of strategies) touched.set(strategy, [])
    for (const delivery of journal.deliveriesTouched(after, upTo)) {
      if (delivery.strategy !== null) touched.get(delivery.strategy)?.push(delivery)
    }
    return touched
  }

  function collect(): StrategyOrderEvent[] {
    const events: StrategyOrderEvent[] = []
    for (const [strategy, deliveries] of deliveriesToLookAt()) {
      for (const delivery of deliveries) {
        const { orderId } = delivery
        const lastFillId = Math.max(lastFillIds.get(orderId) ?? 0, delivery.lastFillId)
        const refundsTold = Math.max(refundCounts.get(orderId) ?? 0, delivery.refunds)
        const told = statuses.get(orderId) ?? delivery.status
        // Nothing new since it was last told or collected: the order is not read (most open orders, most ticks).
        if (delivery.fillsHead <= lastFillId && delivery.refundCount <= refundsTold && told === delivery.orderStatus) continue
        const version = `${delivery.orderStatus}\u0000${delivery.orderVenueId ?? ''}\u0000${delivery.orderUpdatedAt}`
        let known = views.get(orderId)
        if (known?.version !== version) {
          const order = journal.getOrder({ id: orderId })
          if (!order) continue
          known = { version, view: deepFreeze(toOrderView(order)) as OrderView }
        }
        const { view } = known
        // Told its status by the end of this pass: a final order then has no news to come (neither listing reads it)
        // unless a later fill or refund of it is journaled, which reads it again (deliveries.ts).
        if (isFinalStatus(view.mode, view.status)) views.delete(orderId)
        else views.set(orderId, known)
        for (const fill of journal.fillsOf(orderId, lastFillId)) {
          lastFillIds.set(orderId, Math.max(lastFillIds.get(orderId) ?? 0, fill.id))
          events.push({
            strategy,
            type: 'fill',
            event: deepFreeze({ order: view, fill: toFillView(fill) }) as FillEvent,
            acknowledge: () => journal.markDelivered({ orderId, fillId: fill.id }),
          })
        }
        const refunds = delivery.refundCount > refundsTold ? journal.refundsOf(orderId) : []
        refunds.slice(refundsTold).forEach((refund, index) => {
          const count = refundsTold + index + 1
          refundCounts.set(orderId, count)
          events.push({
            strategy,
            type: 'refund',
            event: deepFreeze({ order: view, refund: toRefundView(refund) }) as RefundEvent,
            acknowledge: () => journal.markDelivered({ orderId, refunds: count }),
          })
        })
        if (told !== view.status) {
          const { status } = view
          statuses.set(orderId, status)
          const reason = journal.latestStatusChange(orderId)?.reason ?? null
          events.push({
            strategy,
            type: 'orderUpdate',
            event: deepFreeze({ order: view, reason }) as OrderUpdateEvent,
            acknowledge: () => journal.markDelivered({ orderId, status }),
          })
        }
      }
    }
    return events
  }

  return { collect }
}
