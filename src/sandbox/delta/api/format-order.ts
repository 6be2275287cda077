import type { StoredDeltaOrder } from '../order-store.js'
import { structFacts } from './signed-struct.js'
import { formatDateTime } from './wire.js'

type SideAmountJson =
  | { chainId: number; token: string; amount: string }
  | { chainId: number; token: string; expectedAmount: string; executedAmount: string; minAmount?: string }

export type DeltaOrderJson = {
  id: string
  status: StoredDeltaOrder['status']
  side: StoredDeltaOrder['side']
  type: StoredDeltaOrder['type']
  onChainOrderType: StoredDeltaOrder['onChainOrderType']
  input: SideAmountJson
  output: SideAmountJson
  owner: string
  beneficiary: string
  orderHash: string
  partner: string
  order: Record<string, unknown>
  transactions: { originTx: string; destinationTx: string | null; filledPercent: number; spentAmount: string; receivedAmount: string }[]
  refunds: { tx: string; chainId: number; token: string; amount: string }[]
  createdAt: string
  updatedAt: string
  expiresAt: string
  chainId: number
  partiallyFillable: boolean
  referrerAddress: string | null
  includeAgents: readonly string[] | null
  excludeAgents: readonly string[] | null
}

/**
 * A stored order as every order endpoint returns it (section 2.2): SELL fixes the input amount and reports the
 * output's expected and executed amounts, and `minAmount` (the signed destAmount, as the official SDK's order type
 * carries it), BUY the other way round. A crosschain output is the bridged token on the
 * destination chain. `chainId`, `partiallyFillable`, `referrerAddress`, `includeAgents` and `excludeAgents` are
 * fields the real service's order objects also carry.
 */
export function formatDeltaOrder(order: StoredDeltaOrder): DeltaOrderJson {
  const facts = structFacts(order.signed)
  const srcToken = facts.srcToken.toLowerCase()
  const destToken = (
    order.signed.kind !== 'ExternalOrder' && facts.destinationChainId !== 0n ? order.signed.order.bridge.outputToken : facts.destToken
  ).toLowerCase()
  const fixed = facts.fixedAmount.toString()
  const expected = facts.expectedAmount.toString()
  return {
    id: order.id,
    status: order.status,
    side: order.side,
    type: order.type,
    onChainOrderType: order.onChainOrderType,
    input:
      order.side === 'SELL'
        ? { chainId: order.chainId, token: srcToken, amount: fixed }
        : { chainId: order.chainId, token: srcToken, expectedAmount: expected, executedAmount: order.filledSrcAmount.toString() },
    output:
      order.side === 'SELL'
        ? {
            chainId: order.destChainId,
            token: destToken,
            expectedAmount: expected,
            executedAmount: order.filledDestAmount.toString(),
            ...(facts.minDestAmount === undefined ? {} : { minAmount: facts.minDestAmount.toString() }),
          }
        : { chainId: order.destChainId, token: destToken, amount: fixed },
    owner: order.owner.toLowerCase(),
    beneficiary: order.beneficiary.toLowerCase(),
    orderHash: order.orderHash,
    partner: order.partner,
    order: order.orderWire,
    transactions: order.transactions.map((transaction) => ({
      originTx: transaction.originTx,
      destinationTx: transaction.destinationTx,
      filledPercent: transaction.filledPercent,
      spentAmount: transaction.spentAmount.toString(),
      receivedAmount: transaction.receivedAmount.toString(),
    })),
    refunds: order.refunds.map((refund) => ({
      tx: refund.tx,
      chainId: refund.chainId,
      token: refund.token,
      amount: refund.amount.toString(),
    })),
    createdAt: formatDateTime(order.createdAt),
    updatedAt: formatDateTime(order.updatedAt),
    expiresAt: formatDateTime(order.expiresAt),
    chainId: order.chainId,
    partiallyFillable: order.partiallyFillable,
    referrerAddress: order.referrerAddress ?? null,
    includeAgents: order.includeAgents ?? null,
    excludeAgents: order.excludeAgents ?? null,
  }
}
