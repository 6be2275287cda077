import { z } from 'zod'
import { isFinalStatus, orderModes, orderStatusSchema } from '../../domain/order-status.js'
import type { JournalFill } from '../../journal/order-events.js'
import type { JournalOrder } from '../../journal/orders.js'
import type { JournalRefund } from '../../journal/refunds.js'
import { tokenLabelSchema, unitsSchema } from './token-answer.js'
import type { TokenView } from './token-view.js'

const amount = z.string().regex(/^\d+$/, 'a decimal string of raw units')

/** An order as the console shows it (its signed payload left out). */
export const orderViewSchema = z.object({
  id: z.string(),
  intentId: z.string(),
  strategy: z.string().nullable(),
  mode: z.enum(orderModes),
  chainId: z.number().int(),
  destChainId: z.number().int(),
  venueId: z.string().nullable(),
  orderHash: z.string().nullable(),
  account: z.string(),
  beneficiary: z.string(),
  srcToken: z.string(),
  destToken: z.string(),
  srcAmount: amount,
  destAmount: amount,
  srcLabel: tokenLabelSchema,
  destLabel: tokenLabelSchema,
  srcAmountUnits: unitsSchema,
  destAmountUnits: unitsSchema,
  side: z.enum(['SELL', 'BUY']),
  status: orderStatusSchema,
  open: z.boolean(),
  submitted: z.boolean(),
  /** Unix seconds, as signed. */
  deadline: z.number().int().nullable(),
  createdAt: z.number(),
  updatedAt: z.number(),
})

export const fillViewSchema = z.object({
  id: z.number().int(),
  orderId: z.string(),
  strategy: z.string().nullable(),
  chainId: z.number().int(),
  txHash: z.string(),
  logIndex: z.number().int().nullable(),
  destinationChainId: z.number().int().nullable(),
  destinationTxHash: z.string().nullable(),
  spent: amount,
  received: amount,
  /** The tokens of the fill's order (null: the order is not in the journal). */
  spentLabel: tokenLabelSchema.nullable(),
  receivedLabel: tokenLabelSchema.nullable(),
  spentUnits: unitsSchema,
  receivedUnits: unitsSchema,
  source: z.enum(['venue', 'chain', 'both']),
  blockNumber: z.number().int().nullable(),
  recordedAt: z.number(),
})

export const refundViewSchema = z.object({
  id: z.number().int(),
  orderId: z.string(),
  strategy: z.string().nullable(),
  chainId: z.number().int(),
  txHash: z.string(),
  token: z.string(),
  amount,
  label: tokenLabelSchema,
  amountUnits: unitsSchema,
  recordedAt: z.number(),
})

export const ordersAnswerSchema = z.object({ orders: z.array(orderViewSchema), nextCursor: z.string().nullable() })
export const fillsAnswerSchema = z.object({ fills: z.array(fillViewSchema), nextCursor: z.string().nullable() })
export const refundsAnswerSchema = z.object({ refunds: z.array(refundViewSchema), nextCursor: z.string().nullable() })

/** GET /api/orders/:id: the order, its status history, fills and refunds. */
export const orderAnswerSchema = z.object({
  order: orderViewSchema,
  history: z.array(z.object({ status: orderStatusSchema, reason: z.string().nullable(), at: z.number() })),
  fills: z.array(fillViewSchema),
  refunds: z.array(refundViewSchema.omit({ id: true })),
})

/** The tokens an order sells and buys: those its answers' views label (read them before building the views). */
export function tokensOfOrder(order: Pick<JournalOrder, 'chainId' | 'destChainId' | 'srcToken' | 'destToken'>) {
  return [
    { chainId: order.chainId, token: order.srcToken },
    { chainId: order.destChainId, token: order.destToken },
  ]
}

export function orderViewOf(order: JournalOrder, strategy: string | null | undefined, tokens: TokenView): z.infer<typeof orderViewSchema> {
  return {
    id: order.id,
    intentId: order.intentId,
    strategy: strategy ?? null,
    mode: order.mode,
    chainId: order.chainId,
    destChainId: order.destChainId,
    venueId: order.venueId,
    orderHash: order.orderHash,
    account: order.account,
    beneficiary: order.beneficiary,
    srcToken: order.srcToken,
    destToken: order.destToken,
    srcAmount: order.srcAmount.toString(),
    destAmount: order.destAmount.toString(),
    srcLabel: tokens.labelOf(order.chainId, order.srcToken),
    destLabel: tokens.labelOf(order.destChainId, order.destToken),
    srcAmountUnits: tokens.unitsOf(order.chainId, order.srcToken, order.srcAmount),
    destAmountUnits: tokens.unitsOf(order.destChainId, order.destToken, order.destAmount),
    side: order.side,
    status: order.status,
    open: !isFinalStatus(order.mode, order.status),
    submitted: order.submitted,
    deadline: order.deadline,
    createdAt: order.createdAt,
    updatedAt: order.updatedAt,
  }
}

/** A fill of `order` (its tokens name the amounts). */
export function fillViewOf(
  fill: JournalFill,
  strategy: string | null | undefined,
  tokens: TokenView,
  order: Pick<JournalOrder, 'chainId' | 'destChainId' | 'srcToken' | 'destToken'> | undefined,
): z.infer<typeof fillViewSchema> {
  return {
    id: fill.id,
    orderId: fill.orderId,
    strategy: strategy ?? null,
    chainId: fill.chainId,
    txHash: fill.txHash,
    logIndex: fill.logIndex,
    destinationChainId: fill.destinationChainId,
    destinationTxHash: fill.destinationTxHash,
    spent: fill.spentAmount.toString(),
    received: fill.receivedAmount.toString(),
    spentLabel: order ? tokens.labelOf(order.chainId, order.srcToken) : null,
    receivedLabel: order ? tokens.labelOf(order.destChainId, order.destToken) : null,
    spentUnits: order ? tokens.unitsOf(order.chainId, order.srcToken, fill.spentAmount) : null,
    receivedUnits: order ? tokens.unitsOf(order.destChainId, order.destToken, fill.receivedAmount) : null,
    source: fill.source,
    blockNumber: fill.blockNumber,
    recordedAt: fill.recordedAt,
  }
}

export function refundViewOf(refund: JournalRefund, strategy: string | null | undefined, tokens: TokenView) {
  return {
    orderId: refund.orderId,
    strategy: strategy ?? null,
    chainId: refund.chainId,
    txHash: refund.txHash,
    token: refund.token,
    amount: refund.amount.toString(),
    label: tokens.labelOf(refund.chainId, refund.token),
    amountUnits: tokens.unitsOf(refund.chainId, refund.token, refund.amount),
    recordedAt: refund.recordedAt,
  }
}
