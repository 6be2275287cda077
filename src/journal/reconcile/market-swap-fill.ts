import type { Address, PublicClient } from 'viem'
import { measureNativeIn, nativeToken, sumAccountTransfers, type TransactionFlows } from '../../chain/token-flows.js'
import type { RecordFillParameters } from '../order-events.js'
import type { JournalOrder } from '../orders.js'
import type { ReconcileNote } from './reconcile-report.js'

/**
 * The fill of a mined Market swap, from its receipt: spent is the source token that left the sender (Transfer logs;
 * for a native source the value sent, less any excess the router returned), received the destination token that
 * reached the beneficiary (Transfer logs; for a native destination the balance change across the block).
 */
export async function readMarketSwapFill(
  client: PublicClient,
  flows: TransactionFlows,
  order: JournalOrder,
): Promise<{ fill: RecordFillParameters; notes: ReconcileNote[] }> {
  const notes: ReconcileNote[] = []
  const note = (text: string) => notes.push({ orderId: order.id, txHash: flows.txHash, note: text })
  const sender = sumAccountTransfers(flows, flows.from)
  const beneficiary = order.beneficiary as Address

  let spent: bigint
  let spentLog: number | undefined
  if (order.srcToken === nativeToken) {
    const returned = order.destToken === nativeToken ? 0n : await measureNativeIn(client, flows, flows.from)
    if (returned === undefined) note('native source: what the router returned could not be measured; the value sent is recorded')
    spent = flows.value - (returned ?? 0n)
  } else {
    const total = sender.spent.get(order.srcToken as Address)
    spent = total?.amount ?? 0n
    spentLog = total?.firstLogIndex
  }

  let received: bigint
  let receivedLog: number | undefined
  if (order.destToken === nativeToken) {
    const measured = await measureNativeIn(client, flows, beneficiary)
    if (measured === undefined)
      note("native destination: the beneficiary's balance change could not be measured; the order's destAmount is recorded")
    received = measured ?? order.destAmount
  } else {
    const total = sumAccountTransfers(flows, beneficiary).received.get(order.destToken as Address)
    received = total?.amount ?? 0n
    receivedLog = total?.firstLogIndex
  }

  const logIndex = spentLog ?? receivedLog
  return {
    fill: {
      orderId: order.id,
      chainId: order.chainId,
      txHash: flows.txHash.toLowerCase(),
      spentAmount: spent,
      receivedAmount: received,
      source: 'chain',
      blockNumber: Number(flows.blockNumber),
      ...(logIndex === undefined ? {} : { logIndex }),
    },
    notes,
  }
}
