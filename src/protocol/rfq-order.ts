import { type Address, type Hex, hashTypedData } from 'viem'

// EIP-712 of the RFQ (OTC) contract (protocol-facts).

export const rfqOrderTypes = {
  Order: [
    { name: 'nonceAndMeta', type: 'uint256' },
    { name: 'expiry', type: 'uint128' },
    { name: 'makerAsset', type: 'address' },
    { name: 'takerAsset', type: 'address' },
    { name: 'maker', type: 'address' },
    { name: 'taker', type: 'address' },
    { name: 'makerAmount', type: 'uint256' },
    { name: 'takerAmount', type: 'uint256' },
  ],
} as const

export type RfqOrder = {
  /** Intended taker in the low 160 bits, nonce in the upper 96 (see nonce-and-meta.ts). */
  nonceAndMeta: bigint
  /** Unix seconds; 0 never expires. */
  expiry: bigint
  makerAsset: Address
  takerAsset: Address
  maker: Address
  /** Who may call the fill; the zero address lets anyone. */
  taker: Address
  makerAmount: bigint
  takerAmount: bigint
}

export type RfqDomainParameters = {
  chainId: number
  /** The RFQ contract of that chain. */
  verifyingContract: Address
}

export function getRfqDomain({ chainId, verifyingContract }: RfqDomainParameters) {
  return { name: 'AUGUSTUS RFQ', version: '1', chainId, verifyingContract } as const
}

export function buildRfqOrderTypedData(order: RfqOrder, domain: RfqDomainParameters) {
  return { domain: getRfqDomain(domain), types: rfqOrderTypes, primaryType: 'Order', message: order } as const
}

/** EIP-712 digest of an RFQ order (the OTC book's `orderHash`). */
export function hashRfqOrder(order: RfqOrder, domain: RfqDomainParameters): Hex {
  return hashTypedData(buildRfqOrderTypedData(order, domain))
}
