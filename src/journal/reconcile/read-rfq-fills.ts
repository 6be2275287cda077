import { type Address, type Hex, type PublicClient, parseAbiItem } from 'viem'

/** The RFQ contract's fill event (protocol facts; src/sandbox/contracts/Rfq.sol). */
export const rfqOrderFilledEvent = parseAbiItem(
  'event OrderFilled(bytes32 indexed orderHash, address indexed maker, address makerAsset, uint256 makerAmount, address indexed taker, address takerAsset, uint256 takerAmount)',
)

/** One (partial) fill of an RFQ order: the maker gave makerAmount of makerAsset and got takerAmount of takerAsset. */
export type RfqFill = {
  txHash: Hex
  logIndex: number
  blockNumber: bigint
  makerAsset: Address
  makerAmount: bigint
  takerAsset: Address
  takerAmount: bigint
}

export type ReadRfqFillsParameters = { rfq: Address; orderHash: Hex; maker: Address }

/**
 * Every OrderFilled log of one order and maker, from the first block: the RFQ contract is the only one trusted to emit
 * them (any contract can emit an event of the same shape). Providers that cap getLogs ranges need an archive-capable RPC.
 */
export async function readRfqFills(client: PublicClient, { rfq, orderHash, maker }: ReadRfqFillsParameters): Promise<RfqFill[]> {
  const logs = await client.getLogs({
    address: rfq,
    event: rfqOrderFilledEvent,
    args: { orderHash, maker },
    fromBlock: 'earliest',
    toBlock: 'latest',
    strict: true,
  })
  return logs.map((log) => ({
    txHash: log.transactionHash,
    logIndex: log.logIndex,
    blockNumber: log.blockNumber,
    makerAsset: log.args.makerAsset,
    makerAmount: log.args.makerAmount,
    takerAsset: log.args.takerAsset,
    takerAmount: log.args.takerAmount,
  }))
}
