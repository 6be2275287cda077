import type { Address } from 'viem'
import { liveOtcStates, type OtcOrderState, type StoredOtcOrder } from './otc-order.js'

/** The sandbox's OTC order book: orders by hash, with every state change recorded in `history`. */
export class OtcOrderStore {
  readonly #byHash = new Map<string, StoredOtcOrder>()

  add(order: StoredOtcOrder): StoredOtcOrder {
    const key = order.orderHash.toLowerCase()
    if (this.#byHash.has(key)) throw new Error(`OTC order ${order.orderHash} already stored`)
    this.#byHash.set(key, order)
    if (order.history.length === 0) order.history.push({ state: order.state, at: order.createdAt })
    return order
  }

  get(orderHash: string): StoredOtcOrder | undefined {
    return this.#byHash.get(orderHash.toLowerCase())
  }

  /** Every order of a chain, in any state. */
  onChain(chainId: number): StoredOtcOrder[] {
    return [...this.#byHash.values()].filter((order) => order.chainId === chainId)
  }

  /** Orders of a chain still PENDING or SUSPENDED. */
  live(chainId: number): StoredOtcOrder[] {
    return [...this.#byHash.values()].filter((order) => order.chainId === chainId && liveOtcStates.has(order.state))
  }

  /** Live orders of one maker on one chain. */
  liveOf(chainId: number, maker: Address): StoredOtcOrder[] {
    const wanted = maker.toLowerCase()
    return this.live(chainId).filter((order) => order.order.maker.toLowerCase() === wanted)
  }

  /**
   * Moves an order to `state` at `atSeconds` (unix seconds of the sandbox clock); no-op when unchanged.
   * `nowMs` stamps when an order becomes PENDING, for the counterparty's delay.
   */
  setState(order: StoredOtcOrder, state: OtcOrderState, atSeconds: number, nowMs: number, reason?: string): void {
    if (order.state === state) return
    order.state = state
    order.updatedAt = atSeconds
    order.pendingSince = state === 'PENDING' ? nowMs : undefined
    order.history.push(reason === undefined ? { state, at: atSeconds } : { state, at: atSeconds, reason })
  }
}
