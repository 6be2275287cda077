import type { Address } from 'viem'
import type { IntentKind } from './intents/intent-schema.js'
import type { OrderMode, OrderStatus } from './order-status.js'

// What a strategy sees of its orders. The runtime maps the journal's rows to these views, so the journal may change
// its tables without breaking a plugin: a field is added here only when it means the same thing in every version of
// the contract.

/** One order placed for an intent: a Delta order (or one TWAP slice), a Market transaction, or an OTC order. */
export type OrderView = {
  /** The local order id (deterministic from the intent: the same intent gives the same id after a restart). */
  id: string
  /** The intent it was placed for. */
  intentId: string
  mode: OrderMode
  /** See order statuses: `SIGNED` until the venue first answers, then the mode's own statuses. */
  status: OrderStatus
  /** The signer: Delta owner, Market sender, OTC maker (lowercase). */
  account: Address
  /** Who receives the output (lowercase). */
  beneficiary: Address
  chainId: number
  /** The chain the output lands on; `chainId` for same-chain orders. */
  destChainId: number
  /** The service's id: the Delta order uuid, the OTC order hash; null for Market and before the venue answered. */
  venueId: string | null
  /** The EIP-712 hash of a signed Delta or OTC order; null for Market. */
  orderHash: string | null
  /** Unix seconds, as the signed order carries it; null when it has none. */
  deadline: number | null
  srcToken: Address
  destToken: Address
  /** Raw units: the amount sold (SELL) or the most sold (BUY). */
  srcAmount: bigint
  /** Raw units: the least bought (SELL) or the amount bought (BUY). */
  destAmount: bigint
  side: 'SELL' | 'BUY'
  /** Unix ms of the clock. */
  createdAt: number
  updatedAt: number
}

/** Tokens moved for an order: one fill (a partial fill, a TWAP slice, a whole order). */
export type FillView = {
  /** Increases with every fill recorded: a strategy can remember the last one it counted. */
  id: number
  orderId: string
  chainId: number
  txHash: string
  /** Crosschain: the chain and transaction that delivered the output (null until delivered, and same-chain). */
  destinationChainId: number | null
  destinationTxHash: string | null
  /** Raw units of the order's srcToken that left the wallet. */
  spentAmount: bigint
  /** Raw units of the order's destToken that the beneficiary received. */
  receivedAmount: bigint
  /** Unix ms of the clock when it was recorded. */
  recordedAt: number
}

/** Tokens a crosschain bridge returned to the wallet for an order. */
export type RefundView = {
  orderId: string
  txHash: string
  chainId: number
  token: Address
  /** Raw units. */
  amount: bigint
  recordedAt: number
}

/**
 * What the executor did with one intent: `accepted` (its order is placed), `refused` (stopped before signing: a risk
 * limit, no mode, a bad quote), `failed` (refused by the venue or the chain after signing, or stopped by an error: its
 * name, class and message in `reason`), `done` (already final: a restart found it executed).
 */
export type IntentResult = {
  intentId: string
  kind: IntentKind
  status: 'accepted' | 'refused' | 'failed' | 'done'
  /** Why it was refused or failed. */
  reason: string | null
  /** The order it made, when it made one. */
  orderId: string | null
}
