import type { Address, Hex } from 'viem'
import { type DeltaBridge, type DeltaOrder, zeroBridge } from '../../../protocol/delta-order.js'
import type { SignedStruct } from '../order-store.js'
import type { BuildRequest } from './build-request.js'
import { deltaError, deltaErrors } from './delta-errors.js'
import { lessBps, plusBps } from './quote-leg.js'
import type { ParsedRoute } from './route-json.js'

/** Fields every struct family shares, computed by the build endpoint. */
export type CommonFields = {
  owner: Address
  srcToken: Address
  destToken: Address
  nonce: bigint
  partnerAndFee: bigint
  permit: Hex
  metadata: Hex
}

type StructParameters = { request: BuildRequest; route: ParsedRoute; common: CommonFields }

/** Order (FillableOrder is the same struct): amounts from the route and the slippage. */
export function buildStandardStruct({ request, route, common }: StructParameters): SignedStruct {
  const order: DeltaOrder = {
    ...common,
    beneficiary: request.beneficiary ?? request.owner,
    ...standardAmounts(request, route),
    deadline: BigInt(request.deadline),
    bridge: bridgeOf(route),
  }
  return { kind: 'Order', order }
}

export function buildExternalStruct({ request, route, common }: StructParameters): SignedStruct {
  if (!request.handler || !request.data)
    throw deltaError(deltaErrors.invalidExternalOrderParams, 'handler (address) and data (bytes) are required')
  if (route.bridge !== null) throw deltaError(deltaErrors.invalidExternalOrderParams, 'an ExternalOrder cannot be crosschain')
  const order = {
    ...common,
    handler: request.handler,
    ...standardAmounts(request, route),
    deadline: BigInt(request.deadline),
    data: request.data,
  }
  return { kind: 'ExternalOrder', order }
}

/** Sell TWAP: the route quotes one slice, floor(totalSrcAmount / numSlices). */
export function buildTwapStruct({ request, route, common }: StructParameters): SignedStruct {
  const schedule = scheduleOf(request)
  const { totalSrcAmount } = request
  if (request.side !== 'SELL' || !schedule || totalSrcAmount === undefined) {
    throw deltaError(deltaErrors.invalidTwapParams, 'a TWAPOrder needs side SELL, interval >= 60, numSlices >= 2 and totalSrcAmount')
  }
  const { interval, numSlices } = schedule
  const slice = totalSrcAmount / BigInt(numSlices)
  if (BigInt(route.origin.input.amount) !== slice) {
    throw deltaError(deltaErrors.invalidTwapSrcAmount, `route.origin.input.amount must be floor(totalSrcAmount / numSlices) = ${slice}`)
  }
  const order = {
    ...common,
    beneficiary: request.beneficiary ?? request.owner,
    deadline: BigInt(request.deadline),
    interval: BigInt(interval),
    numSlices,
    destAmountPerSlice: request.limitAmount ?? lessBps(BigInt(route.origin.output.amount), request.slippage),
    totalSrcAmount,
    bridge: bridgeOf(route),
  }
  return { kind: 'TWAPOrder', order }
}

/** Buy TWAP: the route quotes one slice of the destination, floor(totalDestAmount / numSlices). */
export function buildTwapBuyStruct({ request, route, common }: StructParameters): SignedStruct {
  const schedule = scheduleOf(request)
  const { totalDestAmount, maxSrcAmount } = request
  if (request.side !== 'BUY' || !schedule || totalDestAmount === undefined || maxSrcAmount === undefined) {
    throw deltaError(
      deltaErrors.invalidTwapBuyParams,
      'a TWAPBuyOrder needs side BUY, interval >= 60, numSlices >= 2, totalDestAmount and maxSrcAmount',
    )
  }
  const { interval, numSlices } = schedule
  const slice = totalDestAmount / BigInt(numSlices)
  if (BigInt(route.origin.output.amount) !== slice) {
    throw deltaError(
      deltaErrors.invalidTwapBuyDestAmount,
      `route.origin.output.amount must be floor(totalDestAmount / numSlices) = ${slice}`,
    )
  }
  const order = {
    ...common,
    beneficiary: request.beneficiary ?? request.owner,
    deadline: BigInt(request.deadline),
    interval: BigInt(interval),
    numSlices,
    totalDestAmount,
    maxSrcAmount,
    bridge: bridgeOf(route),
  }
  return { kind: 'TWAPBuyOrder', order }
}

/** Interval of at least 60 s and at least 2 slices (section 8), or undefined. */
function scheduleOf({ interval, numSlices }: BuildRequest): { interval: number; numSlices: number } | undefined {
  return interval !== undefined && interval >= 60 && numSlices !== undefined && numSlices >= 2 ? { interval, numSlices } : undefined
}

/** Sell: the source is fixed and the minimum out is expected less slippage; buy: the output is fixed and the maximum in is expected plus slippage. */
function standardAmounts(
  request: BuildRequest,
  route: ParsedRoute,
): Pick<DeltaOrder, 'srcAmount' | 'destAmount' | 'expectedAmount' | 'kind'> {
  const input = BigInt(route.origin.input.amount)
  const output = BigInt(route.origin.output.amount)
  if (request.side === 'SELL') {
    return { kind: 0, srcAmount: input, expectedAmount: output, destAmount: request.limitAmount ?? lessBps(output, request.slippage) }
  }
  return { kind: 1, destAmount: output, expectedAmount: input, srcAmount: request.limitAmount ?? plusBps(input, request.slippage) }
}

/** The route's bridge as the struct carries it (all zero for a same-chain route). */
function bridgeOf(route: ParsedRoute): DeltaBridge {
  if (route.bridge === null) return zeroBridge
  const { contractParams } = route.bridge
  return {
    protocolSelector: contractParams.protocolSelector as Hex,
    destinationChainId: BigInt(route.destination.output.token.chainId),
    outputToken: contractParams.outputToken as Address,
    scalingFactor: contractParams.scalingFactor,
    protocolData: contractParams.protocolData as Hex,
  }
}
