import type { Hex } from 'viem'
import { z } from 'zod'
import { buildOrderCancellationsTypedData, hashOrderCancellations } from '../../../protocol/delta-order.js'
import type { DeltaDomainParameters } from '../../../protocol/delta-types.js'
import { parseRequestPart } from '../../server/validate.js'
import type { DeltaOrderStatus, DeltaOrderStore, StoredDeltaOrder } from '../order-store.js'
import type { DeltaApiContext } from './delta-api-context.js'
import { requireDeltaChain } from './delta-chains.js'
import { deltaError, deltaErrors } from './delta-errors.js'
import { verifySignature } from './signature-check.js'
import { hexSchema, uuidSchema } from './wire.js'

/** Section 8: at most 100 ids per cancellation build or cancel call. */
const maxOrderIds = 100

/** Skipped by the cancellation build (section 3.1). */
const skippedByBuild: ReadonlySet<DeltaOrderStatus> = new Set(['COMPLETED', 'FAILED', 'EXPIRED', 'CANCELLED', 'REFUNDED', 'CANCELLING'])

/**
 * Refused by cancel (section 3.1), plus BRIDGING: its source leg is already filled, and it is in neither of the
 * document's lists of cancellable statuses.
 */
const settled: ReadonlySet<DeltaOrderStatus> = new Set(['COMPLETED', 'REFUNDING', 'REFUNDED', 'FAILED', 'EXPIRED', 'CANCELLED', 'BRIDGING'])

const orderIdsSchema = z.array(uuidSchema).min(1)

export type BuiltCancellationJson = {
  toSign: { domain: ReturnType<typeof buildOrderCancellationsTypedData>['domain']; types: unknown; value: { orderIds: string[] } }
  hash: Hex
}

/** POST /v2/delta/orders/build/cancellation: OrderCancellations typed data over the orders that can still be cancelled. */
export function buildDeltaCancellation({ venue, store }: DeltaApiContext, rawBody: unknown): BuiltCancellationJson {
  checkIdCount(rawBody)
  const { orderIds } = parseRequestPart(z.object({ orderIds: orderIdsSchema }), rawBody, 'body')
  const orders = findOrders(store, [...new Set(orderIds)])
  const cancellable = orders.filter((order) => !skippedByBuild.has(order.status))
  if (cancellable.length === 0) throw deltaError(deltaErrors.allFinalized)
  const domain = domainOf(venue, orders)
  const ids = cancellable.map((order) => order.id)
  const { domain: typedDomain, types } = buildOrderCancellationsTypedData(ids, domain)
  return { toSign: { domain: typedDomain, types, value: { orderIds: ids } }, hash: hashOrderCancellations(ids, domain) }
}

/**
 * POST /v2/delta/orders/cancel: the owner's signature over exactly these orderIds; orders with an auction in flight
 * get a queued cancel (the engine applies it when the auction ends), the others move to CANCELLING.
 */
export async function cancelDeltaOrders({ venue, store }: DeltaApiContext, rawBody: unknown): Promise<{ cancelled: string[] }> {
  checkIdCount(rawBody)
  const { orderIds, signature } = parseRequestPart(z.object({ orderIds: orderIdsSchema, signature: hexSchema }), rawBody, 'body')
  const orders = findOrders(store, orderIds)
  const domain = domainOf(venue, orders)
  const owner = orders[0]?.owner
  const chain = venue.chains.get(domain.chainId)
  const valid =
    owner && chain && (await verifySignature({ chain, signer: owner, digest: hashOrderCancellations(orderIds, domain), signature }))
  if (!valid) {
    throw deltaError(
      deltaErrors.invalidCancelSignature,
      `not signed by ${owner} over OrderCancellations{orderIds} under the Portikus domain of chain ${domain.chainId}`,
    )
  }
  const done = orders.filter((order) => settled.has(order.status))
  if (done.length > 0) {
    throw deltaError(deltaErrors.orderAlreadySettled, done.map((order) => `${order.id} is ${order.status}`).join('; '))
  }
  const now = venue.clock.now()
  for (const order of orders) {
    if (order.status === 'CANCELLING' || order.cancelQueued) continue
    if (order.auctionInFlight) {
      order.cancelQueued = true
      store.touch(order, now)
    } else {
      store.setStatus(order, 'CANCELLING', now, 'cancelled by the owner')
    }
  }
  return { cancelled: orderIds }
}

function checkIdCount(rawBody: unknown): void {
  const orderIds = rawBody !== null && typeof rawBody === 'object' ? (rawBody as Record<string, unknown>).orderIds : undefined
  if (Array.isArray(orderIds) && orderIds.length > maxOrderIds) {
    throw deltaError(deltaErrors.tooManyOrderIds, `${orderIds.length} ids; chunk into batches of ${maxOrderIds} or fewer`)
  }
}

/** Every id must be a stored Delta order, all of one owner on one chain. */
function findOrders(store: DeltaOrderStore, orderIds: readonly string[]): StoredDeltaOrder[] {
  const orders: StoredDeltaOrder[] = []
  const unknown: string[] = []
  for (const id of orderIds) {
    const order = store.get(id.toLowerCase())
    if (order) orders.push(order)
    else unknown.push(id)
  }
  if (unknown.length > 0) throw deltaError(deltaErrors.ordersNotFound, `unknown: ${unknown.join(', ')}`)
  const [first] = orders
  if (first && orders.some((order) => order.owner.toLowerCase() !== first.owner.toLowerCase() || order.chainId !== first.chainId)) {
    throw deltaError(deltaErrors.mixedOrders)
  }
  return orders
}

function domainOf(venue: DeltaApiContext['venue'], orders: readonly StoredDeltaOrder[]): DeltaDomainParameters {
  const chainId = orders[0]?.chainId ?? 0
  return { chainId, verifyingContract: requireDeltaChain(venue, chainId).delta }
}
