import type { Address } from 'viem'
import type { FillView, IntentResult, OrderView, RefundView } from '../domain/order-views.js'

// What a strategy hears about its orders: views the runtime maps from the journal's rows. Each event is one object so
// the contract can grow a field without breaking plugins; strategies receive frozen copies.

/** An order of this strategy changed status (`order.status` is the new one). */
export type OrderUpdateEvent = {
  order: OrderView
  /** What the venue or the executor said about the change, when anything. */
  reason: string | null
}

/** Tokens moved for an order of this strategy (one fill; partial fills arrive one by one). */
export type FillEvent = { order: OrderView; fill: FillView }

/** A crosschain bridge returned tokens for an order of this strategy. */
export type RefundEvent = { order: OrderView; refund: RefundView }

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
export type IntentResultEvent = IntentResult

/** One of the strategy's timers fired. */
export type TimerEvent = {
  /** Unix ms of the injected clock. */
  now: number
  /** The interval (from `timers(config)`) that fired. */
  intervalMs: number
}
