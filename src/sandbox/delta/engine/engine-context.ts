import type { Logger } from '../../../log/logger.js'
import type { ChainVenue } from '../../venue/chain-venue.js'
import type { SandboxVenue } from '../../venue/sandbox-venue.js'
import type { BridgeProfile } from '../bridges.js'
import {
  type DeltaOrderStatus,
  type DeltaOrderStore,
  type DeltaTransaction,
  finalDeltaStatuses,
  type StoredDeltaOrder,
} from '../order-store.js'
import { type OrderTerms, readOrderTerms } from './order-terms.js'
import type { SerialLanes } from './serial-lanes.js'

/** How simulated bridge transfers end: by the profile's failure rate (seeded), or forced either way. */
export type BridgeFailureMode = 'random' | 'always' | 'never'

/** The engine's own bookkeeping of one order (never shown by the API). */
export type OrderRuntime = {
  terms: OrderTerms
  /** An auction, evaluation or settlement of this order is running; nothing else touches it meanwhile. */
  busy: boolean
  /** Sandbox ms before which the order is not auctioned, evaluated or sliced again. */
  nextAttemptAt: number
  /** Block of the source chain's pools at the last LIMIT evaluation. */
  evaluatedBlock: bigint
  /** Status to return to when a suspension lifts. */
  suspendedFrom: DeltaOrderStatus | undefined
}

/** A crosschain fill on its way: the bridge delivers it on the destination chain, or refunds it on the source chain. */
export type BridgeTransfer = {
  order: StoredDeltaOrder
  transaction: DeltaTransaction
  profile: BridgeProfile
  /** Delivered to the beneficiary: the agent's declared amount (sell) or the filled destination (buy). */
  deliverAmount: bigint
  /** Returned to the owner on failure: the source taken by the fill (partner fee included). */
  refundAmount: bigint
  phase: 'deliver' | 'refund'
  /** Sandbox ms. */
  dueAt: number
  running: boolean
}

export type EngineContext = {
  venue: SandboxVenue
  store: DeltaOrderStore
  lanes: SerialLanes
  logger: Logger
  bridgeFailures: { mode: BridgeFailureMode }
  transfers: BridgeTransfer[]
  /** Sandbox ms. */
  now: () => number
  /** Waits `ms` of sandbox time; resolves at once when the engine stops. */
  sleep: (ms: number) => Promise<void>
  stopped: () => boolean
  runtime: (order: StoredDeltaOrder) => OrderRuntime
}

export function createRuntimes(): { runtime: (order: StoredDeltaOrder) => OrderRuntime; forget: (orderId: string) => void } {
  const runtimes = new Map<string, OrderRuntime>()
  return {
    runtime: (order) => {
      let runtime = runtimes.get(order.id)
      if (!runtime) {
        runtime = { terms: readOrderTerms(order), busy: false, nextAttemptAt: 0, evaluatedBlock: -1n, suspendedFrom: undefined }
        runtimes.set(order.id, runtime)
      }
      return runtime
    },
    forget: (orderId) => runtimes.delete(orderId),
  }
}

/** Moves an order to `status` unless it already reached a final status (a race the engine settles quietly). */
export function moveOrder(context: EngineContext, order: StoredDeltaOrder, status: DeltaOrderStatus, reason?: string): boolean {
  if (finalDeltaStatuses.has(order.status) || order.status === status) return false
  context.store.setStatus(order, status, context.now(), reason)
  return true
}

export function sourceChainOf(context: EngineContext, order: StoredDeltaOrder): ChainVenue | undefined {
  return context.venue.chains.get(order.chainId)
}

export function hasBridgeTransfers(context: EngineContext, order: StoredDeltaOrder): boolean {
  return context.transfers.some((transfer) => transfer.order === order)
}
