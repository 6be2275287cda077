import type { Address, Hex } from 'viem'
import type { DeltaOrder } from '../../api/delta/delta-order-schema.js'
import { nativeToken, readTransactionFlows, sumAccountTransfers, type TransactionFlows } from '../../chain/token-flows.js'
import type { OrderEvent } from '../journal.js'
import type { JournalOrder } from '../orders.js'
import type { ReconcileChains } from './reconcile-chains.js'
import { FillFigureMissingError } from './reconcile-errors.js'
import type { FillMismatch, ReconcileNote } from './reconcile-report.js'

type VenueTransaction = DeltaOrder['transactions'][number]

/** The journal events of one venue fill and what the report says about it. */
export type CheckedDeltaFill = {
  events: OrderEvent[]
  /** The figures come from Transfer logs (at least one leg); otherwise they are the venue's. */
  chainConfirmed: boolean
  mismatches: FillMismatch[]
  notes: ReconcileNote[]
}

type Leg = { amount: bigint; logIndex: number | undefined; fromChain: boolean }

export type CheckDeltaFillParameters = {
  order: JournalOrder
  transaction: VenueTransaction
  /** The bridge transfer ended without delivery (the order is final and no destinationTx came): nothing was received. */
  undelivered: boolean
  chains: ReconcileChains
}

/**
 * Checks one fill of the venue's `transactions[]` against the chains' ERC-20 Transfer logs: spent is the source token
 * that left the owner in originTx on the source chain, received the destination token that reached the beneficiary in
 * destinationTx ?? originTx on the destination chain. The chain figure is recorded (source `chain`, then the venue's
 * sighting merges it into `both`); a venue figure that differs is a mismatch. A native leg moves no Transfer log: its
 * venue figure is kept, and a note says so. A reverted originTx moved nothing: no fill, a mismatch per leg.
 */
export async function checkDeltaFill({ order, transaction, undelivered, chains }: CheckDeltaFillParameters): Promise<CheckedDeltaFill> {
  const notes: ReconcileNote[] = []
  const originTx = transaction.originTx.toLowerCase() as Hex
  const note = (text: string) => notes.push({ orderId: order.id, txHash: originTx, note: text })
  const venueLeg = (leg: 'spent' | 'received'): Leg => {
    const amount = leg === 'spent' ? transaction.spentAmount : transaction.receivedAmount
    if (amount === null) throw new FillFigureMissingError({ orderId: order.id, txHash: originTx, leg })
    return { amount, logIndex: undefined, fromChain: false }
  }

  const source = chains.get(order.chainId)?.publicClient
  if (!source) {
    note(`no client for chain ${order.chainId}: the venue's figures are recorded unverified`)
    const fill = fillOf(order, transaction, venueLeg('spent'), undelivered ? zeroLeg : venueLeg('received'))
    return { events: [{ type: 'fill', source: 'venue', ...fill }], chainConfirmed: false, mismatches: [], notes }
  }
  const origin = await readTransactionFlows(source, originTx)
  if (origin.status === 'reverted') {
    const mismatches = (['spent', 'received'] as const).flatMap((leg) => {
      const venue = leg === 'spent' ? transaction.spentAmount : transaction.receivedAmount
      return venue === null || venue === 0n ? [] : [{ orderId: order.id, txHash: originTx, leg, venue, chain: 0n }]
    })
    note('originTx reverted on the chain: no fill recorded')
    return { events: [], chainConfirmed: false, mismatches, notes }
  }

  let spent: Leg
  if (order.srcToken === nativeToken) {
    spent = venueLeg('spent')
    note('native source: no Transfer log, the venue figure is kept')
  } else {
    spent = chainLeg(sumAccountTransfers(origin, order.account as Address).spent.get(order.srcToken as Address))
  }

  let received: Leg
  if (undelivered) {
    received = zeroLeg
    note('bridge transfer not delivered (refunded or failed): received 0')
  } else if (order.destChainId !== order.chainId && transaction.destinationTx === null) {
    received = venueLeg('received')
    note('crosschain fill without a destinationTx: the venue figure is kept')
  } else if (order.destToken === nativeToken) {
    received = venueLeg('received')
    note('native destination: no Transfer log, the venue figure is kept')
  } else {
    const flows = await receivingFlows(order, transaction, origin, chains)
    if (flows === undefined) {
      received = venueLeg('received')
      note(`no client for chain ${order.destChainId}: the venue's received figure is kept`)
    } else {
      received = chainLeg(sumAccountTransfers(flows, order.beneficiary as Address).received.get(order.destToken as Address))
      // A log of another transaction (crosschain delivery) cannot identify the fill of originTx.
      if (flows !== origin) received.logIndex = undefined
    }
  }

  const mismatches: FillMismatch[] = []
  for (const [leg, figure, venue] of [
    ['spent', spent, transaction.spentAmount],
    ['received', received, transaction.receivedAmount],
  ] as const) {
    if (figure.fromChain && venue !== null && venue !== figure.amount) {
      mismatches.push({ orderId: order.id, txHash: originTx, leg, venue, chain: figure.amount })
    }
  }
  const chainConfirmed = spent.fromChain || received.fromChain
  const fill = fillOf(order, transaction, spent, received, origin.blockNumber)
  const { logIndex: _logIndex, blockNumber: _blockNumber, ...seenByVenue } = fill
  const events: OrderEvent[] = chainConfirmed
    ? [
        { type: 'fill', source: 'chain', ...fill },
        // The venue saw it too: the stored row (with the chain's figures) becomes `both`.
        { type: 'fill', source: 'venue', ...seenByVenue },
      ]
    : [{ type: 'fill', source: 'venue', ...fill }]
  return { events, chainConfirmed, mismatches, notes }
}

const zeroLeg: Leg = { amount: 0n, logIndex: undefined, fromChain: false }

function chainLeg(total: { amount: bigint; firstLogIndex: number | undefined } | undefined): Leg {
  return { amount: total?.amount ?? 0n, logIndex: total?.firstLogIndex, fromChain: true }
}

/** The transaction that delivered the output: destinationTx on the destination chain, else originTx itself. */
async function receivingFlows(
  order: JournalOrder,
  transaction: VenueTransaction,
  origin: TransactionFlows,
  chains: ReconcileChains,
): Promise<TransactionFlows | undefined> {
  const txHash = (transaction.destinationTx ?? transaction.originTx).toLowerCase()
  if (order.destChainId === order.chainId && txHash === origin.txHash.toLowerCase()) return origin
  const client = chains.get(order.destChainId)?.publicClient
  return client && (await readTransactionFlows(client, txHash as Hex))
}

function fillOf(order: JournalOrder, transaction: VenueTransaction, spent: Leg, received: Leg, blockNumber?: bigint) {
  const logIndex = spent.logIndex ?? received.logIndex
  const crosschain = order.destChainId !== order.chainId
  return {
    orderId: order.id,
    chainId: order.chainId,
    txHash: transaction.originTx.toLowerCase(),
    spentAmount: spent.amount,
    receivedAmount: received.amount,
    ...(logIndex === undefined ? {} : { logIndex }),
    ...(blockNumber === undefined ? {} : { blockNumber: Number(blockNumber) }),
    ...(crosschain && transaction.destinationTx !== null
      ? { destinationChainId: order.destChainId, destinationTxHash: transaction.destinationTx.toLowerCase() }
      : {}),
  }
}
