import type { Address } from 'viem'

// EIP-712 types of Delta payloads (protocol-facts). Field order is part of the hash: do not reorder.

const bridge = [
  { name: 'protocolSelector', type: 'bytes4' },
  { name: 'destinationChainId', type: 'uint256' },
  { name: 'outputToken', type: 'address' },
  { name: 'scalingFactor', type: 'int8' },
  { name: 'protocolData', type: 'bytes' },
] as const

const order = [
  { name: 'owner', type: 'address' },
  { name: 'beneficiary', type: 'address' },
  { name: 'srcToken', type: 'address' },
  { name: 'destToken', type: 'address' },
  { name: 'srcAmount', type: 'uint256' },
  { name: 'destAmount', type: 'uint256' },
  { name: 'expectedAmount', type: 'uint256' },
  { name: 'deadline', type: 'uint256' },
  { name: 'kind', type: 'uint8' },
  { name: 'nonce', type: 'uint256' },
  { name: 'partnerAndFee', type: 'uint256' },
  { name: 'permit', type: 'bytes' },
  { name: 'metadata', type: 'bytes' },
  { name: 'bridge', type: 'Bridge' },
] as const

const twapHead = [
  { name: 'owner', type: 'address' },
  { name: 'beneficiary', type: 'address' },
  { name: 'srcToken', type: 'address' },
  { name: 'destToken', type: 'address' },
  { name: 'nonce', type: 'uint256' },
  { name: 'partnerAndFee', type: 'uint256' },
  { name: 'deadline', type: 'uint64' },
  { name: 'interval', type: 'uint64' },
  { name: 'numSlices', type: 'uint32' },
] as const

const twapTail = [
  { name: 'permit', type: 'bytes' },
  { name: 'metadata', type: 'bytes' },
  { name: 'bridge', type: 'Bridge' },
] as const

export const deltaOrderTypes = { Order: order, Bridge: bridge } as const

export const twapOrderTypes = {
  TWAPOrder: [...twapHead, { name: 'destAmountPerSlice', type: 'uint256' }, { name: 'totalSrcAmount', type: 'uint256' }, ...twapTail],
  Bridge: bridge,
} as const

export const twapBuyOrderTypes = {
  TWAPBuyOrder: [...twapHead, { name: 'totalDestAmount', type: 'uint256' }, { name: 'maxSrcAmount', type: 'uint256' }, ...twapTail],
  Bridge: bridge,
} as const

export const externalOrderTypes = {
  ExternalOrder: [
    { name: 'owner', type: 'address' },
    { name: 'handler', type: 'address' },
    { name: 'srcToken', type: 'address' },
    { name: 'destToken', type: 'address' },
    { name: 'srcAmount', type: 'uint256' },
    { name: 'destAmount', type: 'uint256' },
    { name: 'expectedAmount', type: 'uint256' },
    { name: 'deadline', type: 'uint256' },
    { name: 'kind', type: 'uint8' },
    { name: 'nonce', type: 'uint256' },
    { name: 'partnerAndFee', type: 'uint256' },
    { name: 'permit', type: 'bytes' },
    { name: 'metadata', type: 'bytes' },
    { name: 'data', type: 'bytes' },
  ],
} as const

export const orderCancellationsTypes = {
  OrderCancellations: [{ name: 'orderIds', type: 'string[]' }],
} as const

export type DeltaDomainParameters = {
  /** The order's source chain. */
  chainId: number
  /** The Delta contract of that chain. */
  verifyingContract: Address
}

/** The "Portikus" domain shared by every Delta payload. */
export function getDeltaDomain({ chainId, verifyingContract }: DeltaDomainParameters) {
  return { name: 'Portikus', version: '2.0.0', chainId, verifyingContract } as const
}
