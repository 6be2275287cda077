import type { DeltaOrder } from '../../api/delta/delta-order-schema.js'
import { isFinalDeltaStatus } from '../../protocol/delta-status.js'
import type { Journal } from '../journal.js'
import type { JournalOrder } from '../orders.js'
import { emptyOrderUpdate, type OrderUpdate } from './apply-order-updates.js'
import { checkDeltaFill } from './check-delta-fill.js'
import type { ReconcileChains } from './reconcile-chains.js'

export type ReconcileDeltaOrderParameters = {
  journal: Journal
  order: JournalOrder
  /** The venue's copy of the order (API 2.2). */
  venue: DeltaOrder
  chains: ReconcileChains
}

/**
 * What the journal lacks of one Delta order: each fill of `transactions[]` not yet recorded (checked against the
 * chain), each refund of `refunds[]`, and the venue's status when it differs. A crosschain fill is recorded once its
 * output was delivered (destinationTx), or once the order ended without delivery (received 0); until then the order's
 * BRIDGING status tells where it stands.
 */
export async function reconcileDeltaOrder({ journal, order, venue, chains }: ReconcileDeltaOrderParameters): Promise<OrderUpdate> {
  const update = emptyOrderUpdate(order.id, 'delta')
  const final = isFinalDeltaStatus(venue.status)
  const crosschain = order.destChainId !== order.chainId
  if (venue.transactions.length > 0) {
    const recorded = new Set(journal.fillsOf(order.id).map((fill) => fill.txHash))
    for (const transaction of venue.transactions) {
      const txHash = transaction.originTx.toLowerCase()
      if (recorded.has(txHash)) continue
      const onBridge = crosschain && transaction.destinationTx === null
      if (onBridge && !final) continue
      recorded.add(txHash)
      const checked = await checkDeltaFill({ order, transaction, undelivered: onBridge && venue.status !== 'COMPLETED', chains })
      update.events.push(...checked.events)
      if (checked.events.length > 0) {
        if (checked.chainConfirmed) update.chainConfirmedFills++
        else update.venueOnlyFills++
      }
      update.mismatches.push(...checked.mismatches)
      update.notes.push(...checked.notes)
    }
  }
  if (venue.refunds.length > 0) {
    const recorded = new Set(journal.refundsOf(order.id).map((refund) => refund.txHash))
    for (const refund of venue.refunds) {
      if (recorded.has(refund.tx.toLowerCase())) continue
      update.refunds.push({ orderId: order.id, txHash: refund.tx, chainId: refund.chainId, token: refund.token, amount: refund.amount })
    }
  }
  if (venue.status !== order.status) update.events.push({ type: 'status', orderId: order.id, status: venue.status, reason: 'venue' })
  return update
}
