import { type Address, type Hash, type Hex, isAddressEqual, type PublicClient, parseAbi } from 'viem'
import type { StoredOtcOrder } from './otc-order.js'
import type { OtcOrderStore } from './otc-order-store.js'

/** Events of the RFQ contract (src/sandbox/contracts/Rfq.sol). */
export const rfqEventsAbi = parseAbi([
  'event OrderFilled(bytes32 indexed orderHash, address indexed maker, address makerAsset, uint256 makerAmount, address indexed taker, address takerAsset, uint256 takerAmount)',
  'event OrderCancelled(bytes32 indexed orderHash, address indexed maker)',
])

export type RfqEvent =
  | { kind: 'filled'; orderHash: Hex; maker: Address; makerAmount: bigint; takerAmount: bigint; transactionHash: Hash; logIndex: number }
  | { kind: 'cancelled'; orderHash: Hex; maker: Address; transactionHash: Hash; logIndex: number }

export type ReadRfqEventsParameters = {
  rfq: Address
  fromBlock: bigint
  toBlock: bigint
  /** Only the events of this order (indexed topic); all of the contract's events otherwise. */
  orderHash?: Hex
}

/** The RFQ contract's fills and cancellations in a block range, in chain order. */
export async function readRfqEvents(
  client: PublicClient,
  { rfq, fromBlock, toBlock, orderHash }: ReadRfqEventsParameters,
): Promise<RfqEvent[]> {
  const [filled, cancelled] = await Promise.all([
    client.getLogs({ address: rfq, event: rfqEventsAbi[0], args: orderHash ? { orderHash } : {}, fromBlock, toBlock, strict: true }),
    client.getLogs({ address: rfq, event: rfqEventsAbi[1], args: orderHash ? { orderHash } : {}, fromBlock, toBlock, strict: true }),
  ])
  const events: (RfqEvent & { blockNumber: bigint })[] = [
    ...filled.map((log) => ({
      kind: 'filled' as const,
      orderHash: log.args.orderHash,
      maker: log.args.maker,
      makerAmount: log.args.makerAmount,
      takerAmount: log.args.takerAmount,
      transactionHash: log.transactionHash,
      logIndex: log.logIndex,
      blockNumber: log.blockNumber,
    })),
    ...cancelled.map((log) => ({
      kind: 'cancelled' as const,
      orderHash: log.args.orderHash,
      maker: log.args.maker,
      transactionHash: log.transactionHash,
      logIndex: log.logIndex,
      blockNumber: log.blockNumber,
    })),
  ]
  return events.sort((a, b) => (a.blockNumber === b.blockNumber ? a.logIndex - b.logIndex : a.blockNumber < b.blockNumber ? -1 : 1))
}

/**
 * Applies one on-chain event to a stored order: fills add up (FULFILLED once nothing remains), a cancellation by the
 * order's maker ends it. Events are counted once; a cancellation under another address is not the maker's
 * (the contract keys its state by msg.sender) and is ignored.
 */
export function applyRfqEvent(store: OtcOrderStore, stored: StoredOtcOrder, event: RfqEvent, atSeconds: number, nowMs: number): void {
  const key = `${event.transactionHash}:${event.logIndex}`
  if (stored.appliedLogs.has(key) || !isAddressEqual(event.maker, stored.order.maker)) return
  stored.appliedLogs.add(key)
  if (event.kind === 'filled') {
    stored.filledMakerAmount += event.makerAmount
    stored.filledTakerAmount += event.takerAmount
    stored.transactionHash = event.transactionHash
    stored.updatedAt = atSeconds
    // An on-chain fill is a fact even when the sandbox clock had already declared the order expired.
    if (stored.filledTakerAmount >= stored.order.takerAmount) store.setState(stored, 'FULFILLED', atSeconds, nowMs, 'filled on-chain')
    return
  }
  if (stored.state === 'FULFILLED' || stored.state === 'EXPIRED' || stored.state === 'CANCELLED') return
  stored.transactionHash = event.transactionHash
  store.setState(stored, 'CANCELLED', atSeconds, nowMs, 'cancelled on-chain by the maker')
}
