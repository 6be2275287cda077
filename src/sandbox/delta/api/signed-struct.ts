import type { Address, Hex } from 'viem'
import {
  buildDeltaOrderTypedData,
  buildExternalOrderTypedData,
  buildTwapBuyOrderTypedData,
  buildTwapOrderTypedData,
} from '../../../protocol/delta-order.js'
import {
  type DeltaDomainParameters,
  deltaOrderTypes,
  externalOrderTypes,
  getDeltaDomain,
  twapBuyOrderTypes,
  twapOrderTypes,
} from '../../../protocol/delta-types.js'
import { compileStructHasher, domainSeparatorOf, typedDataDigest } from '../../../protocol/typed-data-hash.js'
import type { SignedStruct } from '../order-store.js'

export type TypedDataOf = ReturnType<typeof typedDataOf>

/** The EIP-712 typed data of a signed struct (types without EIP712Domain, as the real service sends them). */
export function typedDataOf(signed: SignedStruct, domain: DeltaDomainParameters) {
  switch (signed.kind) {
    case 'Order':
      return buildDeltaOrderTypedData(signed.order, domain)
    case 'TWAPOrder':
      return buildTwapOrderTypedData(signed.order, domain)
    case 'TWAPBuyOrder':
      return buildTwapBuyOrderTypedData(signed.order, domain)
    case 'ExternalOrder':
      return buildExternalOrderTypedData(signed.order, domain)
  }
}

const hashers = {
  Order: compileStructHasher(deltaOrderTypes, 'Order'),
  TWAPOrder: compileStructHasher(twapOrderTypes, 'TWAPOrder'),
  TWAPBuyOrder: compileStructHasher(twapBuyOrderTypes, 'TWAPBuyOrder'),
  ExternalOrder: compileStructHasher(externalOrderTypes, 'ExternalOrder'),
}

/** EIP-712 hash of a signed struct under the Portikus domain (the service's orderHash). */
export function hashSignedStruct(signed: SignedStruct, domain: DeltaDomainParameters): Hex {
  return typedDataDigest(domainSeparatorOf(getDeltaDomain(domain)), hashers[signed.kind](signed.order))
}

export type StructFacts = {
  side: 'SELL' | 'BUY'
  owner: Address
  beneficiary: Address
  srcToken: Address
  destToken: Address
  deadline: bigint
  permit: Hex
  /** Most source token the order can ever take from the owner (what allowance and balance must cover). */
  maxSrcAmount: bigint
  /** SELL: source amount sold; BUY: destination amount bought (totals for TWAP). */
  fixedAmount: bigint
  /** SELL: destination expected (TWAP: the minimum of all slices); BUY: source expected (TWAP: the maximum). */
  expectedAmount: bigint
  /** SELL: the least destination amount the signature accepts (the signed destAmount; TWAP: all slices); BUY: undefined. */
  minDestAmount: bigint | undefined
  destinationChainId: bigint
}

/** What every struct family says about the trade, in one shape. */
export function structFacts(signed: SignedStruct): StructFacts {
  switch (signed.kind) {
    case 'Order': {
      const { order } = signed
      return {
        side: order.kind === 0 ? 'SELL' : 'BUY',
        owner: order.owner,
        beneficiary: beneficiaryOf(order.owner, order.beneficiary),
        srcToken: order.srcToken,
        destToken: order.destToken,
        deadline: order.deadline,
        permit: order.permit,
        maxSrcAmount: order.srcAmount,
        fixedAmount: order.kind === 0 ? order.srcAmount : order.destAmount,
        expectedAmount: order.expectedAmount,
        minDestAmount: order.kind === 0 ? order.destAmount : undefined,
        destinationChainId: order.bridge.destinationChainId,
      }
    }
    case 'ExternalOrder': {
      const { order } = signed
      return {
        side: order.kind === 0 ? 'SELL' : 'BUY',
        owner: order.owner,
        beneficiary: order.owner,
        srcToken: order.srcToken,
        destToken: order.destToken,
        deadline: order.deadline,
        permit: order.permit,
        maxSrcAmount: order.srcAmount,
        fixedAmount: order.kind === 0 ? order.srcAmount : order.destAmount,
        expectedAmount: order.expectedAmount,
        minDestAmount: order.kind === 0 ? order.destAmount : undefined,
        destinationChainId: 0n,
      }
    }
    case 'TWAPOrder': {
      const { order } = signed
      return {
        side: 'SELL',
        owner: order.owner,
        beneficiary: beneficiaryOf(order.owner, order.beneficiary),
        srcToken: order.srcToken,
        destToken: order.destToken,
        deadline: order.deadline,
        permit: order.permit,
        maxSrcAmount: order.totalSrcAmount,
        fixedAmount: order.totalSrcAmount,
        expectedAmount: order.destAmountPerSlice * BigInt(order.numSlices),
        minDestAmount: order.destAmountPerSlice * BigInt(order.numSlices),
        destinationChainId: order.bridge.destinationChainId,
      }
    }
    case 'TWAPBuyOrder': {
      const { order } = signed
      return {
        side: 'BUY',
        owner: order.owner,
        beneficiary: beneficiaryOf(order.owner, order.beneficiary),
        srcToken: order.srcToken,
        destToken: order.destToken,
        deadline: order.deadline,
        permit: order.permit,
        maxSrcAmount: order.maxSrcAmount,
        fixedAmount: order.totalDestAmount,
        expectedAmount: order.maxSrcAmount,
        minDestAmount: undefined,
        destinationChainId: order.bridge.destinationChainId,
      }
    }
  }
}

/** The contract pays the owner when the beneficiary is the zero address. */
function beneficiaryOf(owner: Address, beneficiary: Address): Address {
  return /^0x0{40}$/.test(beneficiary) ? owner : beneficiary
}
