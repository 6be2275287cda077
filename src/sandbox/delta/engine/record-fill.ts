import type { DeltaTransaction } from '../order-store.js'
import { bridgeProfileOf } from './bridge-route.js'
import { type EngineContext, moveOrder } from './engine-context.js'
import { buyFeeOf, filledOfOrder } from './order-terms.js'
import type { FillPlan, SettledFill } from './settle-fill.js'

/**
 * Books a mined fill on the order: one transaction with the amounts the settlement event reports (the owner's spend
 * includes a buy-side partner fee), the running totals, and the status it leads to: COMPLETED once all is filled,
 * BRIDGING instead for a crosschain order (each crosschain fill is handed to its bridge), ACTIVE while part remains.
 */
export function recordFill(context: EngineContext, plan: FillPlan, settled: SettledFill): DeltaTransaction {
  const { order, terms } = plan
  const now = context.now()
  const filledNow = terms.side === 'SELL' ? settled.srcAmount : settled.destAmount
  const spentAmount = settled.srcAmount + buyFeeOf(settled.srcAmount, terms)
  const transaction: DeltaTransaction = {
    originTx: settled.hash,
    destinationTx: null,
    filledPercent: Number((filledNow * 10_000n) / terms.total) / 100,
    spentAmount,
    receivedAmount: settled.destAmount,
    agent: plan.agent.name,
    at: now,
  }
  order.transactions.push(transaction)
  order.filledSrcAmount += spentAmount
  order.filledDestAmount += settled.destAmount
  context.store.touch(order, now)

  if (terms.bridge) {
    const profile = bridgeProfileOf(terms.bridge)
    context.transfers.push({
      order,
      transaction,
      profile,
      deliverAmount: settled.destAmount,
      refundAmount: spentAmount,
      phase: 'deliver',
      dueAt: now + profile.estimatedTimeMs,
      running: false,
    })
  }
  const complete =
    order.signed.kind === 'TWAPOrder' || order.signed.kind === 'TWAPBuyOrder'
      ? order.transactions.length >= order.signed.order.numSlices
      : filledOfOrder(order, terms) >= terms.total
  if (complete) moveOrder(context, order, terms.bridge ? 'BRIDGING' : 'COMPLETED')
  else if (order.status === 'PENDING') moveOrder(context, order, 'ACTIVE')
  return transaction
}
