import { type Address, encodeFunctionData, getAddress, type Hex } from 'viem'
import { nativeTokenPlaceholder } from '../../protocol/addresses.js'
import { getContractArtifact } from '../contracts/compile.js'
import { ApiError } from '../server/api-error.js'
import { marketErrors } from './market-errors.js'
import { nativeTokenWire } from './market-token.js'
import type { PriceRouteJson } from './price-route.js'
import type { PartnerOptions } from './transactions-request.js'

/** What the caller asks of a build besides the route (body of POST /transactions, or GET /swap's query). */
export type SwapIntent = PartnerOptions & {
  userAddress: Address
  receiver?: Address | undefined
  srcAmount?: bigint | undefined
  destAmount?: bigint | undefined
  /** Basis points. */
  slippage?: number | undefined
  /** Unix seconds. */
  deadline?: number | undefined
  /** Signed permit of the source token to the router (hex), applied by the sandbox before the swap. */
  permit?: Hex | undefined
}

/** A router call built from a route: calldata, value, and what it may pull from the user. */
export type SwapCall = {
  functionName: 'swapExactAmountIn' | 'swapExactAmountOut' | 'swapOnAugustusRFQTryBatchFill'
  /** The call's arguments by their ABI names, amounts as decimal strings (the `onlyParams` answer). */
  params: Record<string, string | string[] | Record<string, string | number>>
  data: Hex
  /** Wei sent with the call: the source amount (or its maximum) when selling native ETH. */
  value: bigint
  srcNative: boolean
  /** Source token address (checksummed) unless native. */
  srcToken: Address
  /** The most the router may take from the user. */
  maxSrcAmount: bigint
}

const bps = 10_000n

/** The amounts, recipient and deadline of a build, checked against the route (shared by pool and maker routes). */
export type SwapTerms = {
  /** SELL: the exact source; BUY: the most source the user pays. */
  maxSrcAmount: bigint
  /** SELL: the least destination the user accepts; BUY: the exact destination. */
  destAmount: bigint
  /** SELL: the exact source; BUY: the exact destination. */
  fixedAmount: bigint
  /** SELL: the least destination; BUY: the most source. */
  boundAmount: bigint
  beneficiary: Address
  /** Unix seconds; 0 means none. */
  deadline: bigint
}

/** Checks the intent's rules (partner options, amounts, slippage, deadline) against the route. */
export function checkSwapTerms(route: PriceRouteJson, intent: SwapIntent, nowSeconds: number): SwapTerms {
  checkPartnerOptions(route, intent)
  if (intent.deadline !== undefined && intent.deadline < nowSeconds) {
    throw new ApiError(marketErrors.invalidDeadline, {
      message: `Invalid deadline: ${intent.deadline} is before the sandbox's current time ${nowSeconds} (unix seconds)`,
    })
  }
  const beneficiary = getAddress(intent.receiver ?? intent.userAddress)
  const deadline = BigInt(intent.deadline ?? 0) // 0: no deadline, like production's v6.2 calls
  if (route.side === 'SELL') {
    const srcAmount = fixedAmount(route, intent, 'src')
    const minDestAmount = boundAmount(route, intent, 'dest')
    return { maxSrcAmount: srcAmount, destAmount: minDestAmount, fixedAmount: srcAmount, boundAmount: minDestAmount, beneficiary, deadline }
  }
  const destAmount = fixedAmount(route, intent, 'dest')
  const maxSrcAmount = boundAmount(route, intent, 'src')
  return { maxSrcAmount, destAmount, fixedAmount: destAmount, boundAmount: maxSrcAmount, beneficiary, deadline }
}

/** Checks the intent's rules and encodes the v6.2 router call along the route's pools. */
export function planSwapCall(route: PriceRouteJson, intent: SwapIntent, nowSeconds: number): SwapCall {
  const { maxSrcAmount, destAmount, beneficiary, deadline } = checkSwapTerms(route, intent, nowSeconds)
  const srcNative = route.srcToken === nativeTokenWire
  const srcToken = srcNative ? nativeTokenPlaceholder : getAddress(route.srcToken)
  const destToken = route.destToken === nativeTokenWire ? nativeTokenPlaceholder : getAddress(route.destToken)
  const pools = route.bestRoute.flatMap((part) => part.swaps.map((swap) => getAddress(swap.swapExchanges[0]?.poolAddresses[0] ?? '')))
  const abi = getContractArtifact('MarketRouter').abi
  if (route.side === 'SELL') {
    const args = [srcToken, destToken, maxSrcAmount, destAmount, pools, beneficiary, deadline] as const
    return {
      functionName: 'swapExactAmountIn',
      params: namedParams(['srcToken', 'destToken', 'srcAmount', 'minDestAmount', 'pools', 'beneficiary', 'deadline'], args),
      data: encodeFunctionData({ abi, functionName: 'swapExactAmountIn', args }),
      value: srcNative ? maxSrcAmount : 0n,
      srcNative,
      srcToken,
      maxSrcAmount,
    }
  }
  const args = [srcToken, destToken, maxSrcAmount, destAmount, pools, beneficiary, deadline] as const
  return {
    functionName: 'swapExactAmountOut',
    params: namedParams(['srcToken', 'destToken', 'maxSrcAmount', 'destAmount', 'pools', 'beneficiary', 'deadline'], args),
    data: encodeFunctionData({ abi, functionName: 'swapExactAmountOut', args }),
    value: srcNative ? maxSrcAmount : 0n,
    srcNative,
    srcToken,
    maxSrcAmount,
  }
}

/** Fee and surplus options need a named partner: the anonymous one may not set them. */
function checkPartnerOptions(route: PriceRouteJson, intent: SwapIntent): void {
  const partner = intent.partner ?? route.partner
  if (partner !== 'anon') return
  const requested = [
    intent.partnerAddress !== undefined && 'partnerAddress',
    (intent.partnerFeeBps ?? 0) > 0 && 'partnerFeeBps',
    intent.takeSurplus && 'takeSurplus',
    intent.isSurplusToUser && 'isSurplusToUser',
    intent.isDirectFeeTransfer && 'isDirectFeeTransfer',
    !intent.isCapSurplus && 'isCapSurplus=false',
  ].filter((option): option is string => typeof option === 'string')
  if (requested.length === 0) return
  throw new ApiError(marketErrors.partnerNotAllowed, {
    message: `Partner not allowed: the anonymous partner "anon" cannot use ${requested.join(', ')}; send your partner name`,
  })
}

/** The side's fixed amount (srcAmount on SELL, destAmount on BUY): required, and equal to the route's. */
function fixedAmount(route: PriceRouteJson, intent: SwapIntent, which: 'src' | 'dest'): bigint {
  const field = `${which}Amount` as const
  const given = intent[field]
  const quoted = BigInt(route[field])
  if (given === undefined) {
    throw new ApiError(marketErrors.invalidAmounts, {
      message: `Invalid amounts: ${field} is required on ${route.side} (the route's is ${quoted})`,
    })
  }
  if (given !== quoted) {
    throw new ApiError(marketErrors.invalidAmounts, {
      message: `Invalid amounts: ${field} ${given} differs from priceRoute.${field} ${quoted}; re-quote for another amount`,
    })
  }
  return given
}

/** The other side's bound: minimum out on SELL, maximum in on BUY, given directly or from slippage on the quote. */
function boundAmount(route: PriceRouteJson, intent: SwapIntent, which: 'src' | 'dest'): bigint {
  const field = `${which}Amount` as const
  const given = intent[field]
  if (given !== undefined && intent.slippage !== undefined) {
    throw new ApiError(marketErrors.invalidAmounts, { message: `Invalid amounts: send either ${field} or slippage, not both` })
  }
  if (given !== undefined) return given
  if (intent.slippage === undefined) {
    throw new ApiError(marketErrors.invalidAmounts, {
      message: `Invalid amounts: ${route.side} needs ${field} (the ${which === 'dest' ? 'minimum to receive' : 'maximum to spend'}) or slippage (basis points)`,
    })
  }
  const quoted = BigInt(route[field])
  const slippage = BigInt(intent.slippage)
  return which === 'dest' ? (quoted * (bps - slippage)) / bps : (quoted * (bps + slippage)) / bps
}

function namedParams(names: readonly string[], args: readonly unknown[]): Record<string, string | string[]> {
  return Object.fromEntries(names.map((name, index) => [name, stringify(args[index])]))
}

function stringify(value: unknown): string | string[] {
  return Array.isArray(value) ? value.map(String) : String(value)
}
