import type { Address, Hex } from 'viem'
import type { ApiClient } from '../../api/client.js'
import type { DeltaOrder, DeltaOrderList } from '../../api/delta/delta-order-schema.js'
import { getDeltaOrder } from '../../api/delta/get-delta-order.js'
import { getDeltaOrderByHash } from '../../api/delta/get-delta-order-by-hash.js'
import { getDeltaOrders } from '../../api/delta/get-delta-orders.js'
import { type DeltaOrderStatus, deltaOrderStatuses, finalDeltaOrderStatuses } from '../../protocol/delta-status.js'
import type { JournalOrder } from '../orders.js'
import { mapConcurrently } from './map-concurrently.js'
import { VenueOrderMismatchError } from './reconcile-errors.js'

/** The venue's copy of one journal order, or why it could not be read. */
export type VenueDeltaRead = { order: JournalOrder } & ({ venue: DeltaOrder; error?: undefined } | { venue?: undefined; error: unknown })

/** One list page's worth of reads; `listFailure` ends the paging (the orders left are not checked this run). */
export type VenueDeltaChunk = { reads: VenueDeltaRead[]; listFailure?: { page: number; error: unknown; unchecked: number } }

export type ReadVenueDeltaOrdersParameters = {
  api: ApiClient
  account: Address
  /** Submitted Delta orders of the account, not final in the journal. */
  orders: readonly JournalOrder[]
  /** Up to this many orders are read one by one instead of paging the account's open orders. */
  singleReadLimit: number
  concurrency: number
  signal?: AbortSignal | undefined
  onRequest: (kind: 'page' | 'single') => void
}

/** Page size of the list endpoint (API section 8: at most 1000). */
export const deltaListPageSize = 1000

/** List pages requested ahead of the one being processed. */
const pagesInFlight = 3

type PageAnswer = { list: DeltaOrderList } | { error: unknown }

const openStatuses = deltaOrderStatuses.filter((status) => !(finalDeltaOrderStatuses as readonly string[]).includes(status))

/**
 * The venue's view of the journal's open Delta orders, one chunk at a time: pages of the account's non-final orders
 * (API 2.3, statuses filtered), then, when many journal orders were on none of them (a batch of cancels or fills since
 * the last pass), pages of its final orders, newest first; then single reads of the journal orders no page held.
 * Single reads alone when only a few orders are open, and single reads instead of the pages left when those are more
 * (a long list of the account's orders that the journal does not hold). Once the first page of a list tells the total,
 * a few following pages are requested while the current one is processed.
 */
export async function* readVenueDeltaOrders(parameters: ReadVenueDeltaOrdersParameters): AsyncGenerator<VenueDeltaChunk> {
  const { api, account, orders, signal } = parameters
  const remaining = new Map(orders.map((order) => [order.id, order]))
  if (orders.length > parameters.singleReadLimit) {
    const index = {
      byVenueId: new Map(orders.flatMap((order) => (order.venueId === null ? [] : [[order.venueId.toLowerCase(), order] as const]))),
      byHash: new Map(orders.flatMap((order) => (order.orderHash === null ? [] : [[order.orderHash, order] as const]))),
    }
    const open = yield* pageOrders(parameters, openStatuses, remaining, index)
    if (open === 'failed') return
    // Orders that left the open list are final now: a page of those costs one request where single reads cost one each.
    if (remaining.size > parameters.singleReadLimit) {
      // A final page that fails leaves the rest to single reads, which check each order anyway.
      yield* pageOrders(parameters, finalDeltaOrderStatuses, remaining, index)
    }
  }
  const left = [...remaining.values()]
  for (let start = 0; start < left.length; start += deltaListPageSize) {
    signal?.throwIfAborted()
    const reads = await mapConcurrently(left.slice(start, start + deltaListPageSize), parameters.concurrency, async (order) => {
      try {
        parameters.onRequest('single')
        const venue =
          order.venueId !== null
            ? await getDeltaOrder(api, { orderId: order.venueId, signal })
            : await getDeltaOrderByHash(api, { orderHash: order.orderHash as Hex, signal })
        return checkIdentity(order, venue, account)
      } catch (error) {
        signal?.throwIfAborted()
        return { order, error }
      }
    })
    yield { reads }
  }
}

type OrderIndex = { byVenueId: Map<string, JournalOrder>; byHash: Map<string, JournalOrder> }

/**
 * Pages the account's orders of the given statuses, yielding the journal orders found (and removing them from
 * `remaining`). Stops when the pages left outnumber the orders left to find. A failed page of the open list is yielded
 * as `listFailure` (the orders left are not checked this run); a failed page of the final list is not (single reads follow).
 */
async function* pageOrders(
  parameters: ReadVenueDeltaOrdersParameters,
  statuses: readonly DeltaOrderStatus[],
  remaining: Map<string, JournalOrder>,
  { byVenueId, byHash }: OrderIndex,
): AsyncGenerator<VenueDeltaChunk, 'done' | 'failed'> {
  const { api, account, signal } = parameters
  const reportFailure = statuses === openStatuses
  const pages = new Map<number, Promise<PageAnswer>>()
  const request = (page: number) => {
    if (pages.has(page)) return
    parameters.onRequest('page')
    const answer = getDeltaOrders(api, { userAddress: account, status: statuses, limit: deltaListPageSize, page, signal })
    pages.set(
      page,
      answer.then(
        (list) => ({ list }),
        (error: unknown) => ({ error }),
      ),
    )
  }
  let lastPage = Number.POSITIVE_INFINITY
  request(1)
  for (let page = 1; ; page++) {
    request(page)
    const answer = (await pages.get(page)) as PageAnswer
    pages.delete(page)
    signal?.throwIfAborted()
    if (!('list' in answer)) {
      if (reportFailure) yield { reads: [], listFailure: { page, error: answer.error, unchecked: remaining.size } }
      return 'failed'
    }
    const { list } = answer
    // The first page tells how many there are: the next ones are requested while this one is processed.
    if (page === 1) lastPage = Math.max(1, Math.ceil(list.total / deltaListPageSize))
    for (let next = page + 1; next <= Math.min(lastPage, page + pagesInFlight); next++) request(next)
    const reads: VenueDeltaRead[] = []
    for (const venue of list.data) {
      const order = byVenueId.get(venue.id.toLowerCase()) ?? byHash.get(venue.orderHash.toLowerCase())
      // An order seen on an earlier page (statuses move while we page) is read once.
      if (!order || !remaining.delete(order.id)) continue
      reads.push(checkIdentity(order, venue, account))
    }
    yield { reads }
    if (!list.hasMore || list.data.length === 0 || remaining.size === 0) return 'done'
    // A long list holding few of ours: reading those singly takes fewer requests than the pages left.
    if (lastPage - page > remaining.size) return 'done'
  }
}

/** The venue's order must be ours: the same hash and owner as the journal's (a wrong id would graft another order's fills). */
function checkIdentity(order: JournalOrder, venue: DeltaOrder, account: Address): VenueDeltaRead {
  const sameHash = order.orderHash === null || order.orderHash === venue.orderHash.toLowerCase()
  const sameOwner = venue.owner.toLowerCase() === account.toLowerCase()
  if (sameHash && sameOwner) return { order, venue }
  return {
    order,
    error: new VenueOrderMismatchError({
      orderId: order.id,
      venueId: venue.id,
      journalHash: order.orderHash,
      venueHash: venue.orderHash,
      venueOwner: venue.owner,
    }),
  }
}
