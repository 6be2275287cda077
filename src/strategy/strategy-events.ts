import type { Address } from 'viem'
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

/** A token the strategy watches on one chain: the wallet's balance of it comes with every BalancesEvent. */
export type BalanceRequest = {
  chainId: number
  /** An ERC-20 address, or the native placeholder 0xEeee…EEeE for the chain's native asset. */
  token: Address
}

/** The wallet's balances of the watched tokens, read at one block per chain: after start and after every reconciliation. */
export type BalancesEvent = {
  /** Unix ms of the injected clock when the balances were read. */
  now: number
  balances: readonly (BalanceRequest & { amount: bigint })[]
}

/** What the executor did with one of the strategy's intents. */
export type IntentResultEvent = {
  intentId: string
  kind: string
  /** accepted: its order is placed; refused: stopped before signing (risk limit, no mode); failed: refused after; done: already final. */
  status: 'accepted' | 'refused' | 'failed' | 'done'
  /** Why it was refused or failed. */
  reason: string | null
  /** The order it made, when it made one. */
  orderId: string | null
}

/** One of the strategy's timers fired. */
export type TimerEvent = {
  /** Unix ms of the injected clock. */
  now: number
  /** The interval (from `timers(config)`) that fired. */
  intervalMs: number
}
