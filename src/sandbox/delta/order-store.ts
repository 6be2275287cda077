import type { Address, Hex } from 'viem'
import type { DeltaOrder, ExternalOrder, TwapBuyOrder, TwapOrder } from '../../protocol/delta-order.js'
import { type DeltaOrderStatus, finalDeltaOrderStatuses, type OnChainOrderType } from '../../protocol/delta-status.js'

export type { DeltaOrderStatus, OnChainOrderType }

/** Statuses after which nothing changes any more. */
export const finalDeltaStatuses: ReadonlySet<DeltaOrderStatus> = new Set(finalDeltaOrderStatuses)

export type SignedStruct =
  | { kind: 'Order'; order: DeltaOrder }
  | { kind: 'TWAPOrder'; order: TwapOrder }
  | { kind: 'TWAPBuyOrder'; order: TwapBuyOrder }
  | { kind: 'ExternalOrder'; order: ExternalOrder }

export type DeltaTransaction = {
  /** Fill transaction on the source chain. */
  originTx: Hex
  /** Delivery on the destination chain (crosschain), null until it lands. */
  destinationTx: Hex | null
  /** Share of the order this fill covers, 0..100. */
  filledPercent: number
  /** Source token spent by the owner in this fill (raw units). */
  spentAmount: bigint
  /** Destination token received by the beneficiary in this fill (raw units). */
  receivedAmount: bigint
  agent: string
  /** Sandbox ms. */
  at: number
}

export type DeltaRefund = { tx: Hex; chainId: number; token: Address; amount: bigint }

export type StoredDeltaOrder = {
  id: string
  chainId: number
  /** Destination chain; equals chainId for a same-chain order. */
  destChainId: number
  status: DeltaOrderStatus
  side: 'SELL' | 'BUY'
  type: 'MARKET' | 'LIMIT'
  onChainOrderType: OnChainOrderType
  orderHash: Hex
  owner: Address
  beneficiary: Address
  partner: string
  signed: SignedStruct
  /** The `order` object exactly as submitted (the build's `toSign.value`), returned by every read. */
  orderWire: Record<string, unknown>
  /** Normalised to the 64-byte compact form for EOAs. */
  signature: Hex
  partiallyFillable: boolean
  includeAgents: readonly string[] | undefined
  excludeAgents: readonly string[] | undefined
  referrerAddress: Address | undefined
  /** Cumulative amounts moved so far (raw units). */
  filledSrcAmount: bigint
  filledDestAmount: bigint
  transactions: DeltaTransaction[]
  refunds: DeltaRefund[]
  /** A cancel arrived while an auction was in flight: applied once the auction ends. */
  cancelQueued: boolean
  /** An auction (or a settlement transaction) is running for this order. */
  auctionInFlight: boolean
  /** Sandbox ms. */
  createdAt: number
  updatedAt: number
  expiresAt: number
  history: { status: DeltaOrderStatus; at: number; reason?: string }[]
}

export type DeltaOrderFilter = {
  owner?: Address
  chainIds?: readonly number[]
  type?: 'MARKET' | 'LIMIT'
  statuses?: readonly DeltaOrderStatus[]
  onChainOrderTypes?: readonly OnChainOrderType[]
}

type Listener = (order: StoredDeltaOrder, previous: DeltaOrderStatus | undefined) => void

/**
 * The sandbox's Delta order book: the only place orders live. The API desk adds and reads orders, the execution
 * engine moves them through their statuses; every status change is recorded in `history` and announced.
 */
export class DeltaOrderStore {
  readonly #byId = new Map<string, StoredDeltaOrder>()
  readonly #byHash = new Map<string, StoredDeltaOrder>()
  readonly #listeners = new Set<Listener>()

  add(order: StoredDeltaOrder): StoredDeltaOrder {
    if (this.#byHash.has(order.orderHash.toLowerCase())) throw new Error(`order ${order.orderHash} already stored`)
    this.#byId.set(order.id, order)
    this.#byHash.set(order.orderHash.toLowerCase(), order)
    if (order.history.length === 0) order.history.push({ status: order.status, at: order.createdAt })
    this.#emit(order, undefined)
    return order
  }

  get(id: string): StoredDeltaOrder | undefined {
    return this.#byId.get(id)
  }

  getByHash(hash: string): StoredDeltaOrder | undefined {
    return this.#byHash.get(hash.toLowerCase())
  }

  /** Orders matching the filter, newest first. */
  list(filter: DeltaOrderFilter = {}): StoredDeltaOrder[] {
    const owner = filter.owner?.toLowerCase()
    const result: StoredDeltaOrder[] = []
    for (const order of this.#byId.values()) {
      if (owner && order.owner.toLowerCase() !== owner) continue
      if (filter.chainIds && !filter.chainIds.includes(order.chainId)) continue
      if (filter.type && order.type !== filter.type) continue
      if (filter.statuses && !filter.statuses.includes(order.status)) continue
      if (filter.onChainOrderTypes && !filter.onChainOrderTypes.includes(order.onChainOrderType)) continue
      result.push(order)
    }
    return result.sort((a, b) => b.createdAt - a.createdAt)
  }

  /** Orders not yet in a final status. */
  open(): StoredDeltaOrder[] {
    return [...this.#byId.values()].filter((order) => !finalDeltaStatuses.has(order.status))
  }

  /** Moves an order to `status` (no-op when unchanged; refuses to leave a final status). */
  setStatus(order: StoredDeltaOrder, status: DeltaOrderStatus, at: number, reason?: string): void {
    if (order.status === status) return
    if (finalDeltaStatuses.has(order.status)) throw new Error(`order ${order.id} is ${order.status}; it cannot become ${status}`)
    const previous = order.status
    order.status = status
    order.updatedAt = at
    order.history.push(reason === undefined ? { status, at } : { status, at, reason })
    this.#emit(order, previous)
  }

  /** Records a change that is not a status change (fills, refunds, flags). */
  touch(order: StoredDeltaOrder, at: number): void {
    order.updatedAt = at
    this.#emit(order, order.status)
  }

  onChange(listener: Listener): () => void {
    this.#listeners.add(listener)
    return () => this.#listeners.delete(listener)
  }

  #emit(order: StoredDeltaOrder, previous: DeltaOrderStatus | undefined): void {
    for (const listener of this.#listeners) listener(order, previous)
  }
}
