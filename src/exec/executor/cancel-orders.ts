import { encodeFunctionData, type Hex, parseAbi } from 'viem'
import { buildDeltaCancellation } from '../../api/delta/build-delta-cancellation.js'
import { cancelDeltaOrders } from '../../api/delta/cancel-delta-orders.js'
import { signDeltaCancellation } from '../../chain/sign-delta-cancellation.js'
import { resolveSpender } from '../../chain/spender.js'
import { isFinalStatus } from '../../domain/order-status.js'
import { findOrders } from '../../journal/find-orders.js'
import type { JournalOrder } from '../../journal/orders.js'
import { reasonOf } from './execution-errors.js'
import { dataHashOf, type ExecutorContext } from './executor-context.js'

const rfqCancelAbi = parseAbi(['function cancelOrder(bytes32 orderHash)'])

export type CancelOutcome =
  | { id: string; orderId: string; outcome: 'requested'; detail: string }
  | { id: string; orderId?: string; outcome: 'not-found' | 'final' | 'not-cancellable' | 'failed'; detail: string }

/**
 * Cancels orders: Delta ones with one signed cancellation per chain (the venue moves them to CANCELLING, then
 * CANCELLED; a fill already in flight may still land), OTC ones on chain with the RFQ contract's cancelOrder. A Market
 * transaction cannot be cancelled once broadcast. The reconciler records the outcome.
 */
export async function cancelOrders(context: ExecutorContext, ids: readonly string[]): Promise<CancelOutcome[]> {
  const outcomes: CancelOutcome[] = []
  const deltaByChain = new Map<number, { id: string; order: JournalOrder }[]>()
  // The same order named twice (by intent id and by venue id) is cancelled once: an OTC cancel costs a transaction.
  const otcDone = new Map<string, CancelOutcome>()
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
    } else if (order.mode === 'otc') {
      const outcome = await cancelOtcOrder(context, id, order)
      otcDone.set(order.id, outcome)
      outcomes.push(outcome)
    } else if (order.venueId === null) {
      outcomes.push({ id, orderId: order.id, outcome: 'not-cancellable', detail: 'not yet known to the venue; run recovery first' })
    } else {
      const group = deltaByChain.get(order.chainId) ?? []
      group.push({ id, order })
      deltaByChain.set(order.chainId, group)
    }
  }
  for (const [chainId, group] of deltaByChain) outcomes.push(...(await cancelDeltaGroup(context, chainId, group)))
  return outcomes
}

async function cancelDeltaGroup(
  context: ExecutorContext,
  chainId: number,
  group: readonly { id: string; order: JournalOrder }[],
): Promise<CancelOutcome[]> {
  const orderIds = [...new Set(group.map(({ order }) => order.venueId as string))]
  try {
    const delta = resolveSpender({ contracts: context.contracts, chainId, mode: 'delta' })
    const built = await buildDeltaCancellation(context.api, { orderIds })
    const signed = await signDeltaCancellation(context.account, { toSign: built.toSign, delta, hash: built.hash })
    const { cancelled } = await cancelDeltaOrders(context.api, { orderIds: signed.orderIds, signature: signed.signature })
    const accepted = new Set(cancelled)
    return group.map(({ id, order }) =>
      accepted.has(order.venueId as string)
        ? { id, orderId: order.id, outcome: 'requested' as const, detail: 'the venue accepted the cancellation' }
        : {
            id,
            orderId: order.id,
            outcome: 'failed' as const,
            detail: 'the venue did not list it as cancelled (already settling or final)',
          },
    )
  } catch (error) {
    const detail = reasonOf(error)
    return group.map(({ id, order }) => ({ id, orderId: order.id, outcome: 'failed' as const, detail }))
  }
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
