import type { Journal } from '../journal/journal.js'
import { isFinalStatus } from '../journal/order-status.js'
import type { FillEvent, OrderUpdateEvent, RefundEvent } from '../strategy/strategy-events.js'

/** An event for one strategy, read from the journal. */
export type StrategyOrderEvent = { strategy: string } & (
  | { type: 'orderUpdate'; event: OrderUpdateEvent }
  | { type: 'fill'; event: FillEvent }
  | { type: 'refund'; event: RefundEvent }
)

export type OrderEventTracker = {
  /** Marks everything the journal holds now as delivered (at startup: nothing old is delivered again). */
  prime: () => void
  /** Status changes, fills and refunds of the strategies' orders since the last call, in journal order. */
  collect: () => StrategyOrderEvent[]
}

/**
 * Tracks in memory what was delivered to strategies: the last status of each order, the fill ids and the refunds.
 * Orders of a strategy come from the journal (orders joined to their intent's strategy). An order already final at
 * the previous pass is not read again for fills and refunds (reconciliation no longer touches it).
 */
export function createOrderEventTracker(journal: Journal, strategies: readonly string[]): OrderEventTracker {
  const statuses = new Map<string, string>()
  const fills = new Set<number>()
  const refunds = new Set<string>()

  function collect(): StrategyOrderEvent[] {
    const events: StrategyOrderEvent[] = []
    for (const strategy of strategies) {
      for (const order of journal.listOrders({ strategy })) {
        const previous = statuses.get(order.id)
        if (previous !== undefined && previous === order.status && isFinalStatus(order.mode, previous)) continue
        if (previous !== order.status) {
          statuses.set(order.id, order.status)
          const reason = journal.orderHistory(order.id).at(-1)?.reason ?? null
          events.push({ strategy, type: 'orderUpdate', event: { order, reason } })
        }
        for (const fill of journal.fillsOf(order.id)) {
          if (fills.has(fill.id)) continue
          fills.add(fill.id)
          events.push({ strategy, type: 'fill', event: { order, fill } })
        }
        for (const refund of journal.refundsOf(order.id)) {
          const key = `${refund.orderId}:${refund.txHash}:${refund.chainId}:${refund.token}`
          if (refunds.has(key)) continue
          refunds.add(key)
          events.push({ strategy, type: 'refund', event: { order, refund } })
        }
      }
    }
    return events
  }

  return {
    prime: () => {
      collect()
    },
    collect,
  }
}
