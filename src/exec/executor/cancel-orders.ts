import { encodeFunctionData, type Hex, parseAbi } from 'viem'
import { buildDeltaCancellation, maxOrderIdsPerCancellation } from '../../api/delta/build-delta-cancellation.js'
import { cancelDeltaOrders } from '../../api/delta/cancel-delta-orders.js'
import { OrderAlreadySettledError, OrdersAlreadyFinalizedError } from '../../api/delta/delta-errors.js'
import { signDeltaCancellation } from '../../chain/sign-delta-cancellation.js'
import { resolveSpender } from '../../chain/spender.js'
import { isFinalStatus } from '../../domain/order-status.js'
import { findOrders } from '../../journal/find-orders.js'
import type { OrderEvent } from '../../journal/journal.js'
import type { JournalOrder } from '../../journal/orders.js'
import { reasonOf } from './execution-errors.js'
import { dataHashOf, type ExecutorContext } from './executor-context.js'

const rfqCancelAbi = parseAbi(['function cancelOrder(bytes32 orderHash)'])

/** Which signed cancellation carried a Delta order: batch `index` (from 1) of `of` on the chain. */
export type CancelBatch = { chainId: number; index: number; of: number; hash?: Hex | undefined }

/**
 * requested: the venue accepted the cancellation (Delta: CANCELLING, then CANCELLED) or it was sent on chain (OTC);
 * skipped: the venue left the order out of the cancellation, as it is already CANCELLING or final there.
 */
export type CancelOutcome =
  | { id: string; orderId: string; outcome: 'requested'; detail: string; batch?: CancelBatch | undefined }
  | {
      id: string
      orderId?: string
      outcome: 'not-found' | 'final' | 'not-cancellable' | 'skipped' | 'failed'
      detail: string
      batch?: CancelBatch | undefined
    }

type DeltaTarget = { id: string; order: JournalOrder }

/**
 * Cancels orders: Delta ones with signed cancellations of at most 100 orders each, per chain (the venue moves them to
 * CANCELLING, then CANCELLED; a fill already in flight may still land), OTC ones on chain with the RFQ contract's
 * cancelOrder. A Market transaction cannot be cancelled once broadcast. Each outcome is per order: a batch the venue
 * refuses fails its own orders only. The journal records CANCELLING with the batch that asked for it; the reconciler
 * records what follows.
 */
export async function cancelOrders(context: ExecutorContext, ids: readonly string[]): Promise<CancelOutcome[]> {
  const outcomes: CancelOutcome[] = []
  const deltaByChain = new Map<number, DeltaTarget[]>()
  // The same order named twice (by intent id and by venue id) is cancelled once: an OTC cancel costs a transaction.
  const otcDone = new Map<string, CancelOutcome>()
  const signer = context.account.address.toLowerCase()
  for (const id of ids) {
    const [order] = findOrders(context.journal, id)
    const otcOutcome = order && otcDone.get(order.id)
    if (otcOutcome) {
      outcomes.push({ ...otcOutcome, id })
    } else if (!order) {
      outcomes.push({ id, outcome: 'not-found', detail: 'no order in the journal has this local id, intent id, venue id or hash' })
    } else if (isFinalStatus(order.mode, order.status)) {
      outcomes.push({ id, orderId: order.id, outcome: 'final', detail: `already ${order.status}` })
    } else if (order.mode === 'market') {
      outcomes.push({ id, orderId: order.id, outcome: 'not-cancellable', detail: 'a broadcast Market transaction cannot be cancelled' })
    } else if (order.account !== signer) {
      // Only its owner can cancel it; in a Delta batch it would also make the venue refuse the batch's other orders.
      const detail = `signed by ${order.account}; only that account can cancel it, and this one is ${signer}`
      outcomes.push({ id, orderId: order.id, outcome: 'not-cancellable', detail })
    } else if (order.mode === 'otc') {
      const outcome = await cancelOtcOrder(context, id, order)
      otcDone.set(order.id, outcome)
      outcomes.push(outcome)
    } else if (order.venueId === null) {
      outcomes.push({ id, orderId: order.id, outcome: 'not-cancellable', detail: 'not yet known to the venue; run recovery first' })
    } else if (order.status === 'CANCELLING') {
      outcomes.push({ id, orderId: order.id, outcome: 'requested', detail: 'already CANCELLING: its cancellation was accepted before' })
    } else {
      const group = deltaByChain.get(order.chainId) ?? []
      group.push({ id, order })
      deltaByChain.set(order.chainId, group)
    }
  }
  for (const [chainId, group] of deltaByChain) outcomes.push(...(await cancelDeltaGroup(context, chainId, group)))
  return outcomes
}

/** Splits ids into consecutive batches of at most `size` (the last one shorter), keeping their order. */
export function planCancelBatches<T>(ids: readonly T[], size = maxOrderIdsPerCancellation): T[][] {
  if (!Number.isInteger(size) || size < 1) throw new RangeError(`a cancellation batch holds at least 1 order id, received ${size}`)
  const batches: T[][] = []
  for (let start = 0; start < ids.length; start += size) batches.push(ids.slice(start, start + size))
  return batches
}

type VenueOutcome = Pick<CancelOutcome, 'outcome' | 'detail' | 'batch'>

/** The Delta orders of one chain, in batches the service accepts; one signature and one cancel call per batch. */
async function cancelDeltaGroup(context: ExecutorContext, chainId: number, group: readonly DeltaTarget[]): Promise<CancelOutcome[]> {
  // Sent as journaled (the venue's spelling), matched case-insensitively.
  const venueIds = [...new Map(group.map(({ order }) => [(order.venueId as string).toLowerCase(), order.venueId as string])).values()]
  const batches = planCancelBatches(venueIds)
  const byVenueId = new Map<string, VenueOutcome>()
  for (const [index, orderIds] of batches.entries()) {
    const batch: CancelBatch = { chainId, index: index + 1, of: batches.length }
    const results = await cancelDeltaBatch(context, batch, orderIds)
    for (const [venueId, result] of results) byVenueId.set(venueId, result)
    journalBatch(context, group, results)
  }
  return group.map(({ id, order }) => {
    const result = byVenueId.get((order.venueId as string).toLowerCase()) as VenueOutcome
    return { id, orderId: order.id, ...result } as CancelOutcome
  })
}

/**
 * Builds, checks, signs and sends one cancellation. An order that settles between the build and the cancel makes the
 * service refuse the whole call (Order already settled): the batch is built once more, which leaves that order out.
 */
async function cancelDeltaBatch(
  context: ExecutorContext,
  batch: CancelBatch,
  orderIds: readonly string[],
): Promise<Map<string, VenueOutcome>> {
  const label = `cancellation ${batch.index}/${batch.of} on chain ${batch.chainId}`
  const log = context.logger?.child({ chainId: batch.chainId, batch: `${batch.index}/${batch.of}`, orders: orderIds.length })
  const each = (outcome: VenueOutcome['outcome'], detail: string) =>
    new Map(orderIds.map((venueId) => [venueId.toLowerCase(), { outcome, detail, batch }]))
  for (let attempt = 1; ; attempt++) {
    try {
      const delta = resolveSpender({ contracts: context.contracts, chainId: batch.chainId, mode: 'delta' })
      const built = await buildDeltaCancellation(context.api, { orderIds })
      const signed = await signDeltaCancellation(context.account, { toSign: built.toSign, delta, orderIds, hash: built.hash })
      const { cancelled } = await cancelDeltaOrders(context.api, { orderIds: signed.orderIds, signature: signed.signature })
      const withHash: CancelBatch = { ...batch, hash: signed.hash }
      const inPayload = new Set(signed.orderIds.map((id) => id.toLowerCase()))
      const accepted = new Set(cancelled.map((id) => id.toLowerCase()))
      const results = new Map<string, VenueOutcome>()
      for (const venueId of orderIds.map((id) => id.toLowerCase())) {
        if (accepted.has(venueId)) {
          results.set(venueId, { outcome: 'requested', detail: `the venue accepted ${label} (${signed.hash})`, batch: withHash })
        } else if (!inPayload.has(venueId)) {
          results.set(venueId, {
            outcome: 'skipped',
            detail: `left out of ${label}: already CANCELLING or final at the venue`,
            batch: withHash,
          })
        } else {
          results.set(venueId, { outcome: 'failed', detail: `${label}: the venue did not list it as cancelled`, batch: withHash })
        }
      }
      log?.info({ hash: signed.hash, accepted: accepted.size }, 'Delta cancellation accepted')
      return results
    } catch (error) {
      if (error instanceof OrderAlreadySettledError && attempt === 1) continue
      if (error instanceof OrdersAlreadyFinalizedError) {
        return each('skipped', `left out of ${label}: every order of the batch is already CANCELLING or final at the venue`)
      }
      log?.warn({ err: error }, 'Delta cancellation refused; the other batches go on')
      return each('failed', `${label}: ${reasonOf(error)}`)
    }
  }
}

/**
 * One journal transaction per batch: each order the venue accepted becomes CANCELLING, its reason naming the batch
 * and the signed cancellation's hash (an order that became final meanwhile keeps its status).
 */
function journalBatch(context: ExecutorContext, group: readonly DeltaTarget[], results: ReadonlyMap<string, VenueOutcome>): void {
  const events: OrderEvent[] = []
  const seen = new Set<string>()
  for (const { order } of group) {
    const result = results.get((order.venueId as string).toLowerCase())
    if (result?.outcome !== 'requested' || seen.has(order.id)) continue
    seen.add(order.id)
    const current = context.journal.getOrder({ id: order.id })
    if (!current || isFinalStatus(current.mode, current.status)) continue
    const { batch } = result
    const reason = batch
      ? `cancel requested: batch ${batch.index}/${batch.of} on chain ${batch.chainId}${batch.hash ? ` (${batch.hash})` : ''}`
      : 'cancel requested'
    events.push({ type: 'status', orderId: order.id, status: 'CANCELLING', reason })
  }
  if (events.length > 0) context.journal.appendOrderEvents(events)
}

async function cancelOtcOrder(context: ExecutorContext, id: string, order: JournalOrder): Promise<CancelOutcome> {
  try {
    const rfq = resolveSpender({ contracts: context.contracts, chainId: order.chainId, mode: 'rfq' })
    const sent = await context.queueFor(order.chainId).send({
      to: rfq.address,
      data: encodeFunctionData({ abi: rfqCancelAbi, functionName: 'cancelOrder', args: [order.orderHash as Hex] }),
      purpose: 'cancel',
      label: `cancel OTC order ${order.orderHash}`,
      beforeBroadcast: (transaction) => {
        context.journal.recordTransaction({
          txHash: transaction.hash,
          orderId: order.id,
          purpose: 'cancel',
          chainId: transaction.chainId,
          nonce: transaction.nonce,
          from: transaction.from,
          to: transaction.to,
          value: transaction.value,
          dataHash: dataHashOf(transaction.data),
        })
      },
    })
    return { id, orderId: order.id, outcome: 'requested', detail: `cancelled on chain in ${sent.hash}` }
  } catch (error) {
    return { id, orderId: order.id, outcome: 'failed', detail: reasonOf(error) }
  }
}
