import type { Address } from 'viem'
import type { FillView, OrderView, RefundView } from '../domain/order-views.js'
import type { JournalFill } from '../journal/order-events.js'
import type { JournalOrder } from '../journal/orders.js'
import type { JournalRefund } from '../journal/refunds.js'

// Journal rows to the views strategies receive. The journal stores addresses it checked, lowercased.

export function toOrderView(order: JournalOrder): OrderView {
  return {
    id: order.id,
    intentId: order.intentId,
    mode: order.mode,
    status: order.status,
    account: order.account as Address,
    beneficiary: order.beneficiary as Address,
    chainId: order.chainId,
    destChainId: order.destChainId,
    venueId: order.venueId,
    orderHash: order.orderHash,
    deadline: order.deadline,
    srcToken: order.srcToken as Address,
    destToken: order.destToken as Address,
    srcAmount: order.srcAmount,
    destAmount: order.destAmount,
    side: order.side,
    createdAt: order.createdAt,
    updatedAt: order.updatedAt,
  }
}

export function toFillView(fill: JournalFill): FillView {
  return {
    id: fill.id,
    orderId: fill.orderId,
    chainId: fill.chainId,
    txHash: fill.txHash,
    destinationChainId: fill.destinationChainId,
    destinationTxHash: fill.destinationTxHash,
    spentAmount: fill.spentAmount,
    receivedAmount: fill.receivedAmount,
    recordedAt: fill.recordedAt,
  }
}

export function toRefundView(refund: JournalRefund): RefundView {
  return {
    orderId: refund.orderId,
    txHash: refund.txHash,
    chainId: refund.chainId,
    token: refund.token as Address,
    amount: refund.amount,
    recordedAt: refund.recordedAt,
  }
}
