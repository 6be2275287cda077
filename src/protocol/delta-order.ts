import { type Address, type Hex, hashTypedData } from 'viem'
import { zeroAddress } from './addresses.js'
import {
  type DeltaDomainParameters,
  deltaOrderTypes,
  externalOrderTypes,
  getDeltaDomain,
  orderCancellationsTypes,
  twapBuyOrderTypes,
  twapOrderTypes,
} from './delta-types.js'

/** 0 = sell (srcAmount fixed, destAmount is the minimum out), 1 = buy (destAmount fixed, srcAmount is the maximum in). */
export type OrderKind = 0 | 1

export type DeltaBridge = {
  protocolSelector: Hex
  /** 0 for a same-chain order; an order is crosschain when this is not 0. */
  destinationChainId: bigint
  outputToken: Address
  scalingFactor: number
  protocolData: Hex
}

export type DeltaOrder = {
  owner: Address
  beneficiary: Address
  srcToken: Address
  destToken: Address
  srcAmount: bigint
  destAmount: bigint
  expectedAmount: bigint
  /** Unix seconds. */
  deadline: bigint
  kind: OrderKind
  nonce: bigint
  partnerAndFee: bigint
  permit: Hex
  metadata: Hex
  bridge: DeltaBridge
}

type TwapCommon = {
  owner: Address
  beneficiary: Address
  srcToken: Address
  destToken: Address
  nonce: bigint
  partnerAndFee: bigint
  /** Unix seconds (uint64). */
  deadline: bigint
  /** Seconds between slices (uint64), at least 60. */
  interval: bigint
  /** At least 2 (uint32). */
  numSlices: number
  permit: Hex
  metadata: Hex
  bridge: DeltaBridge
}

export type TwapOrder = TwapCommon & { destAmountPerSlice: bigint; totalSrcAmount: bigint }
export type TwapBuyOrder = TwapCommon & { totalDestAmount: bigint; maxSrcAmount: bigint }

export type ExternalOrder = {
  owner: Address
  handler: Address
  srcToken: Address
  destToken: Address
  srcAmount: bigint
  destAmount: bigint
  expectedAmount: bigint
  deadline: bigint
  kind: OrderKind
  nonce: bigint
  partnerAndFee: bigint
  permit: Hex
  metadata: Hex
  data: Hex
}

/** The bridge of a same-chain order. */
export const zeroBridge: DeltaBridge = {
  protocolSelector: '0x00000000',
  destinationChainId: 0n,
  outputToken: zeroAddress,
  scalingFactor: 0,
  protocolData: '0x',
}

export function isCrosschainOrder(order: { bridge: DeltaBridge }): boolean {
  return order.bridge.destinationChainId !== 0n
}

export function buildDeltaOrderTypedData(order: DeltaOrder, domain: DeltaDomainParameters) {
  return { domain: getDeltaDomain(domain), types: deltaOrderTypes, primaryType: 'Order', message: order } as const
}

export function buildTwapOrderTypedData(order: TwapOrder, domain: DeltaDomainParameters) {
  return { domain: getDeltaDomain(domain), types: twapOrderTypes, primaryType: 'TWAPOrder', message: order } as const
}

export function buildTwapBuyOrderTypedData(order: TwapBuyOrder, domain: DeltaDomainParameters) {
  return { domain: getDeltaDomain(domain), types: twapBuyOrderTypes, primaryType: 'TWAPBuyOrder', message: order } as const
}

export function buildExternalOrderTypedData(order: ExternalOrder, domain: DeltaDomainParameters) {
  return { domain: getDeltaDomain(domain), types: externalOrderTypes, primaryType: 'ExternalOrder', message: order } as const
}

/** The cancellation payload: its value holds only `orderIds`. */
export function buildOrderCancellationsTypedData(orderIds: readonly string[], domain: DeltaDomainParameters) {
  return {
    domain: getDeltaDomain(domain),
    types: orderCancellationsTypes,
    primaryType: 'OrderCancellations',
    message: { orderIds },
  } as const
}

/** EIP-712 digest of a Delta `Order` (the service's `orderHash`). */
export function hashDeltaOrder(order: DeltaOrder, domain: DeltaDomainParameters): Hex {
  return hashTypedData(buildDeltaOrderTypedData(order, domain))
}

export function hashTwapOrder(order: TwapOrder, domain: DeltaDomainParameters): Hex {
  return hashTypedData(buildTwapOrderTypedData(order, domain))
}

export function hashTwapBuyOrder(order: TwapBuyOrder, domain: DeltaDomainParameters): Hex {
  return hashTypedData(buildTwapBuyOrderTypedData(order, domain))
}

export function hashExternalOrder(order: ExternalOrder, domain: DeltaDomainParameters): Hex {
  return hashTypedData(buildExternalOrderTypedData(order, domain))
}

export function hashOrderCancellations(orderIds: readonly string[], domain: DeltaDomainParameters): Hex {
  return hashTypedData(buildOrderCancellationsTypedData(orderIds, domain))
}
