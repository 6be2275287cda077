import type { Logger } from '../../log/logger.js'
import { type Clock, unixSeconds } from '../../time/clock.js'
import type { ChainVenue } from '../venue/chain-venue.js'
import { liveOtcStates, type StoredOtcOrder, stateForFunds } from './otc-order.js'
import type { OtcOrderStore } from './otc-order-store.js'
import { readMakerFunds } from './read-maker-funds.js'
import { applyRfqEvent, readRfqEvents } from './rfq-events.js'
import { createSerialQueue } from './serial-queue.js'

export type OtcChainTrackerParameters = {
  chain: ChainVenue
  store: OtcOrderStore
  clock: Clock
  logger: Logger
}

/**
 * Keeps the OTC orders of one chain in step with it: fills and cancellations from the RFQ contract's events,
 * expiry from the sandbox clock, SUSPENDED / PENDING from the maker's balance and allowance. Admitting a new order
 * and polling run one at a time, so no event falls between the order's replay and the next poll.
 */
export class OtcChainTracker {
  readonly chain: ChainVenue
  readonly #store: OtcOrderStore
  readonly #clock: Clock
  readonly #logger: Logger
  readonly #serial = createSerialQueue()
  /** Last block whose events have been applied. */
  #cursor: bigint | undefined
  /** Block at which the makers' funds were last read. */
  #fundsBlock = -1n

  constructor({ chain, store, clock, logger }: OtcChainTrackerParameters) {
    this.chain = chain
    this.#store = store
    this.#clock = clock
    this.#logger = logger
  }

  /**
   * Stores a new order: replays the contract's past events for its hash (it may have been filled or cancelled
   * before it was posted), then sets PENDING or SUSPENDED from the maker's funds. A hash already stored returns
   * the stored order.
   */
  admit(draft: StoredOtcOrder): Promise<StoredOtcOrder> {
    return this.#serial(async () => {
      const existing = this.#store.get(draft.orderHash)
      if (existing) return existing
      const cursor = await this.#ensureCursor()
      const events = await readRfqEvents(this.#client, {
        rfq: this.chain.fixture.contracts.rfq,
        fromBlock: 0n,
        toBlock: cursor,
        orderHash: draft.orderHash,
      })
      const nowMs = this.#clock.now()
      for (const event of events) applyRfqEvent(this.#store, draft, event, draft.createdAt, nowMs)
      if (liveOtcStates.has(draft.state)) {
        draft.state = stateForFunds(draft)
        draft.pendingSince = draft.state === 'PENDING' ? nowMs : undefined
      }
      draft.history = [{ state: draft.state, at: draft.createdAt }]
      // The funds were read before the queue let this order in; the next poll reads them again.
      this.#fundsBlock = -1n
      return this.#store.add(draft)
    })
  }

  /**
   * One step: new events, then expiry, then (when a block was mined) the makers' funds. Up to the head the chain venue
   * has heard of while it watches (no request when no block came), or with `fresh` (after a transaction of the
   * sandbox's own) the node's head as it is now.
   */
  poll({ fresh = false }: { fresh?: boolean } = {}): Promise<void> {
    return this.#serial(async () => {
      const latest =
        !fresh && this.chain.watching && this.chain.head >= 0n ? this.chain.head : await this.#client.getBlockNumber({ cacheTime: 0 })
      const cursor = this.#cursor ?? latest
      if (latest > cursor) {
        const events = await readRfqEvents(this.#client, { rfq: this.chain.fixture.contracts.rfq, fromBlock: cursor + 1n, toBlock: latest })
        const nowMs = this.#clock.now()
        for (const event of events) {
          const stored = this.#store.get(event.orderHash)
          if (stored?.chainId === this.chain.chainId) applyRfqEvent(this.#store, stored, event, unixSeconds(this.#clock), nowMs)
        }
      }
      // Never back: a head heard of may lag the block number an order's admission read.
      this.#cursor = latest > cursor ? latest : cursor
      await this.#expireOrders(this.#cursor)
      if (latest !== this.#fundsBlock) {
        await this.#refreshFunds()
        this.#fundsBlock = latest
      }
    })
  }

  get #client() {
    return this.chain.clients.publicClient
  }

  async #ensureCursor(): Promise<bigint> {
    this.#cursor ??= await this.#client.getBlockNumber({ cacheTime: 0 })
    return this.#cursor
  }

  /**
   * Live orders whose expiry has passed for good. The contract fills while block.timestamp <= expiry, and a chain's
   * time trails the sandbox clock between two syncs (syncChainTime), so a fill can still be mined after the clock has
   * passed an expiry. An order the clock has passed is EXPIRED only once the block the chain would mine now is stamped
   * after its expiry and every block mined before has had its events applied (`appliedThrough`): no fill can come
   * after that, and a fill mined before it is applied first. Otherwise the next poll looks again.
   */
  async #expireOrders(appliedThrough: bigint): Promise<void> {
    const nowSeconds = BigInt(unixSeconds(this.#clock))
    const passed = this.#store.live(this.chain.chainId).filter(({ order }) => order.expiry !== 0n && nowSeconds > order.expiry)
    if (passed.length === 0) return
    const next = await this.#client.getBlock({ blockTag: 'pending' })
    if ((await this.#client.getBlockNumber({ cacheTime: 0 })) > appliedThrough) return
    for (const stored of passed) {
      const { expiry } = stored.order
      if (next.timestamp > expiry) {
        this.#store.setState(stored, 'EXPIRED', Number(nowSeconds), this.#clock.now(), `expiry ${expiry} passed`)
      }
    }
  }

  /** Reads balance and allowance once per (maker, token) of the live orders and moves them between PENDING and SUSPENDED. */
  async #refreshFunds(): Promise<void> {
    const live = this.#store.live(this.chain.chainId)
    if (live.length === 0) return
    const groups = new Map<string, StoredOtcOrder[]>()
    for (const stored of live) {
      const key = `${stored.order.maker.toLowerCase()}:${stored.order.makerAsset.toLowerCase()}`
      groups.set(key, [...(groups.get(key) ?? []), stored])
    }
    await Promise.all(
      [...groups.values()].map(async (orders) => {
        const { maker, makerAsset } = (orders[0] as StoredOtcOrder).order
        try {
          const funds = await readMakerFunds(this.#client, { token: makerAsset, maker, spender: this.chain.fixture.contracts.rfq })
          const nowSeconds = unixSeconds(this.#clock)
          for (const stored of orders) {
            stored.makerFunds = funds.available
            const state = stateForFunds(stored)
            const reason = state === 'SUSPENDED' ? 'maker balance or RFQ allowance below the remaining amount' : 'maker funds restored'
            this.#store.setState(stored, state, nowSeconds, this.#clock.now(), reason)
          }
        } catch (error) {
          this.#logger.warn({ err: error, maker, makerAsset, chainId: this.chain.chainId }, 'reading OTC maker funds failed')
        }
      }),
    )
  }
}
