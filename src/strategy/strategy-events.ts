import type { JournalFill } from '../journal/order-events.js'
import type { JournalOrder } from '../journal/orders.js'
import type { JournalRefund } from '../journal/refunds.js'

// What a strategy hears about its orders, built from the journal's rows. Each event is one object so the contract can
// grow a field without breaking plugins; strategies receive frozen copies.

/** An order of this strategy changed status (`order.status` is the new one). */
export type OrderUpdateEvent = {
  order: JournalOrder
  /** What the venue or the executor said about the change, when anything. */
  reason: string | null
}

/** Tokens moved for an order of this strategy (one fill; partial fills arrive one by one). */
export type FillEvent = { order: JournalOrder; fill: JournalFill }

/** A crosschain bridge returned tokens for an order of this strategy. */
export type RefundEvent = { order: JournalOrder; refund: JournalRefund }

/** One of the strategy's timers fired. */
export type TimerEvent = {
  /** Unix ms of the injected clock. */
  now: number
  /** The interval (from `timers(config)`) that fired. */
  intervalMs: number
}
