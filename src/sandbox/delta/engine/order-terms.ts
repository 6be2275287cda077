import { type Address, getAddress, type Hex, size } from 'viem'
import { nativeTokenPlaceholder, zeroAddress } from '../../../protocol/addresses.js'
import type { DeltaBridge } from '../../../protocol/delta-order.js'
import { getTwapSliceAmount } from '../../../protocol/twap.js'
import type { StoredDeltaOrder } from '../order-store.js'

/** How the engine drives an order: one auctioned fill, resting limit fills, or TWAP slices. */
export type OrderFlow = 'market' | 'limit' | 'twap'

/** What the engine needs of a stored order, whatever struct was signed. */
export type OrderTerms = {
  flow: OrderFlow
  side: 'SELL' | 'BUY'
  owner: Address
  /** The order's beneficiary, the owner when it signed the zero address. */
  beneficiary: Address
  srcToken: Address
  destToken: Address
  /** Partner fee in basis points, 0 without a partner (the contract charges none then). */
  feeBps: bigint
  bridge: DeltaBridge | undefined
  permit: Hex
  /** Sell: srcAmount; buy: destAmount; TWAP: the totals. The unit fills are counted in. */
  total: bigint
  /** A standard order whose fills may be partial. */
  partial: boolean
}

export function readOrderTerms(order: StoredDeltaOrder): OrderTerms {
  const { signed } = order
  const flow: OrderFlow =
    signed.kind === 'TWAPOrder' || signed.kind === 'TWAPBuyOrder'
      ? 'twap'
      : order.type === 'LIMIT' || order.onChainOrderType === 'FillableOrder'
        ? 'limit'
        : 'market'
  const base = signed.order
  const beneficiary = 'beneficiary' in base && base.beneficiary.toLowerCase() !== zeroAddress ? base.beneficiary : base.owner
  const common = {
    flow,
    owner: base.owner,
    beneficiary: getAddress(beneficiary),
    srcToken: base.srcToken,
    destToken: base.destToken,
    feeBps: partnerFeeBps(base.partnerAndFee),
    bridge: 'bridge' in base && base.bridge.destinationChainId !== 0n ? base.bridge : undefined,
    permit: base.permit,
  }
  switch (signed.kind) {
    case 'TWAPOrder':
      return { ...common, side: 'SELL', total: signed.order.totalSrcAmount, partial: false }
    case 'TWAPBuyOrder':
      return { ...common, side: 'BUY', total: signed.order.totalDestAmount, partial: false }
    default: {
      const { kind, srcAmount, destAmount } = signed.order
      const permit96 = size(signed.order.permit) === 96
      return {
        ...common,
        side: kind === 0 ? 'SELL' : 'BUY',
        total: kind === 0 ? srcAmount : destAmount,
        partial: order.partiallyFillable && signed.kind === 'Order' && !permit96,
      }
    }
  }
}

/** The contract's partner fee: `partnerAndFee & 0xff`, charged only when the partner address is not zero. */
export function partnerFeeBps(partnerAndFee: bigint): bigint {
  return partnerAndFee >> 96n === 0n ? 0n : partnerAndFee & 0xffn
}

export function isNative(token: Address): boolean {
  return token.toLowerCase() === nativeTokenPlaceholder.toLowerCase()
}

/** Part of the order already filled, in the unit of `total` (sell: source; buy: destination). */
export function filledOfOrder(order: StoredDeltaOrder, terms: OrderTerms): bigint {
  return terms.side === 'SELL' ? order.filledSrcAmount : order.filledDestAmount
}

/** The limit one fill must meet: the least the beneficiary receives (sell) or the most the owner pays (buy). */
export type FillLimit = { side: 'SELL'; minDest: bigint } | { side: 'BUY'; maxSrc: bigint }

/** The limit of a fill of `fillAmount` of a standard order, as the contract computes it. */
export function standardFillLimit(order: StoredDeltaOrder, fillAmount: bigint): FillLimit {
  if (order.signed.kind === 'TWAPOrder' || order.signed.kind === 'TWAPBuyOrder') throw new Error('not a standard order')
  const { kind, srcAmount, destAmount } = order.signed.order
  if (kind === 0) return { side: 'SELL', minDest: ceilDiv(destAmount * fillAmount, srcAmount) }
  return { side: 'BUY', maxSrc: (srcAmount * fillAmount) / destAmount }
}

/** Slice `index` of a TWAP: the amount it fills (sell: source, buy: destination) and its limit. */
export function twapSlice(order: StoredDeltaOrder, index: number): { fillAmount: bigint; limit: FillLimit } {
  const { signed } = order
  if (signed.kind === 'TWAPOrder') {
    const { totalSrcAmount, numSlices, destAmountPerSlice } = signed.order
    return { fillAmount: getTwapSliceAmount(totalSrcAmount, numSlices, index), limit: { side: 'SELL', minDest: destAmountPerSlice } }
  }
  if (signed.kind === 'TWAPBuyOrder') {
    const { totalDestAmount, maxSrcAmount, numSlices } = signed.order
    return {
      fillAmount: getTwapSliceAmount(totalDestAmount, numSlices, index),
      limit: { side: 'BUY', maxSrc: getTwapSliceAmount(maxSrcAmount, numSlices, index) },
    }
  }
  throw new Error('not a TWAP order')
}

/**
 * Source the owner must still be able to pay (balance and allowance): the unfilled share of the signed source amount
 * (for a buy, of its maximum; the partner fee on a buy comes out of that maximum too).
 */
export function remainingSourceNeed(order: StoredDeltaOrder, terms: OrderTerms): bigint {
  const { signed } = order
  if (signed.kind === 'TWAPOrder') return signed.order.totalSrcAmount - order.filledSrcAmount
  if (signed.kind === 'TWAPBuyOrder') {
    const { maxSrcAmount, numSlices } = signed.order
    let need = 0n
    for (let index = order.transactions.length; index < numSlices; index++) need += getTwapSliceAmount(maxSrcAmount, numSlices, index)
    return need
  }
  const { srcAmount, destAmount } = signed.order
  const remaining = terms.total - filledOfOrder(order, terms)
  if (remaining <= 0n) return 0n
  return terms.side === 'SELL' ? remaining : ceilDiv(srcAmount * remaining, destAmount)
}

/** Whether the agent's amount meets the limit once the partner fee is applied as the contract applies it. */
export function meetsLimit(limit: FillLimit, agentAmount: bigint, terms: OrderTerms): boolean {
  if (limit.side === 'SELL') {
    // Crosschain: the bridge delivers the whole declared amount; no destination-side fee.
    const net = terms.bridge ? agentAmount : agentAmount - (agentAmount * terms.feeBps) / 10_000n
    return net >= limit.minDest
  }
  return agentAmount + buyFeeOf(agentAmount, terms) <= limit.maxSrc
}

/** Partner fee the owner pays on top of the agent's amount in a buy (source token). */
export function buyFeeOf(agentAmount: bigint, terms: OrderTerms): bigint {
  return terms.side === 'BUY' ? (agentAmount * terms.feeBps) / 10_000n : 0n
}

export function ceilDiv(a: bigint, b: bigint): bigint {
  return a === 0n ? 0n : (a - 1n) / b + 1n
}
