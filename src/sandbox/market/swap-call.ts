import { type Address, encodeFunctionData, getAddress, type Hex } from 'viem'
import { nativeTokenPlaceholder } from '../../protocol/addresses.js'
import { getContractArtifact } from '../contracts/compile.js'
import { ApiError } from '../server/api-error.js'
import { marketErrors } from './market-errors.js'
import { nativeTokenWire } from './market-token.js'
import { partnerFeeOn } from './partner-fee.js'
import type { PriceRouteJson } from './price-route.js'
import { describeSwapOptions, type PartnerCharge, planPartnerCharge, routerSwapOptions } from './swap-options.js'
import type { PartnerOptions } from './transactions-request.js'

/** What the caller asks of a build besides the route (body of POST /transactions, or GET /swap's query). */
export type SwapIntent = PartnerOptions & {
  userAddress: Address
  /** The account that sends the transaction when `userAddress` is an intermediary contract calling the router. */
  txOrigin?: Address | undefined
  receiver?: Address | undefined
  srcAmount?: bigint | undefined
  destAmount?: bigint | undefined
  /** Basis points. */
  slippage?: number | undefined
  /** Unix seconds. */
  deadline?: number | undefined
  /** Signed permit of the source token (hex): EIP-2612 / DAI applied by the sandbox, Permit2 passed to the router. */
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
  /** The most the router may take from the user (partner fee and surplus included). */
  maxSrcAmount: bigint
  /** What a 96-byte Permit2 signature transfer must have signed for this call; undefined when none can back it. */
  permit2Amount: bigint | undefined
}

const bps = 10_000n

/** The amounts, recipient and deadline of a build, checked against the route (shared by pool and maker routes). */
export type SwapTerms = {
  /** SELL: the exact source; BUY: the most source the user pays, partner fee included. */
  maxSrcAmount: bigint
  /** SELL: the least destination the user accepts after the partner fee; BUY: the exact destination. */
  destAmount: bigint
  /** SELL: the exact source; BUY: the exact destination. */
  fixedAmount: bigint
  /** SELL: the least destination; BUY: the most source. */
  boundAmount: bigint
  beneficiary: Address
  /** Unix seconds; 0 means none. */
  deadline: bigint
  /** The partner fee or surplus the router takes. */
  charge: PartnerCharge
}

/**
 * Checks the intent's rules (partner options, amounts, slippage, deadline) against the route. A slippage bound is
 * taken on the quote net of the partner fee: SELL on destAmount less the fee, BUY on srcAmount plus the fee.
 */
export function checkSwapTerms(route: PriceRouteJson, intent: SwapIntent, nowSeconds: number): SwapTerms {
  const charge = planPartnerCharge(route, intent)
  if (intent.deadline !== undefined && intent.deadline < nowSeconds) {
    throw new ApiError(marketErrors.invalidDeadline, {
      message: `Invalid deadline: ${intent.deadline} is before the sandbox's current time ${nowSeconds} (unix seconds)`,
    })
  }
  const beneficiary = getAddress(intent.receiver ?? intent.userAddress)
  const deadline = BigInt(intent.deadline ?? 0) // 0: no deadline, like production's v6.2 calls
  if (route.side === 'SELL') {
    const srcAmount = fixedAmount(route, intent, 'src')
    const quotedDest = BigInt(route.destAmount)
    const minDestAmount = boundAmount(route, intent, 'dest', quotedDest - partnerFeeOn(quotedDest, charge.feeBps))
    return {
      maxSrcAmount: srcAmount,
      destAmount: minDestAmount,
      fixedAmount: srcAmount,
      boundAmount: minDestAmount,
      beneficiary,
      deadline,
      charge,
    }
  }
  const destAmount = fixedAmount(route, intent, 'dest')
  const quotedSrc = BigInt(route.srcAmount)
  const maxSrcAmount = boundAmount(route, intent, 'src', quotedSrc + partnerFeeOn(quotedSrc, charge.feeBps))
  return { maxSrcAmount, destAmount, fixedAmount: destAmount, boundAmount: maxSrcAmount, beneficiary, deadline, charge }
}

/**
 * Checks the intent's rules and encodes the v6.2 router call along the route's pools: the plain call, or with the
 * router's SwapOptions when the build charges a partner fee, collects surplus or carries a Permit2 payload.
 */
export function planSwapCall(route: PriceRouteJson, intent: SwapIntent, nowSeconds: number, permit2?: Hex): SwapCall {
  const { maxSrcAmount, destAmount, beneficiary, deadline, charge } = checkSwapTerms(route, intent, nowSeconds)
  const srcNative = route.srcToken === nativeTokenWire
  const srcToken = srcNative ? nativeTokenPlaceholder : getAddress(route.srcToken)
  const destToken = route.destToken === nativeTokenWire ? nativeTokenPlaceholder : getAddress(route.destToken)
  const swaps = route.bestRoute.flatMap((part) => part.swaps)
  const pools = swaps.map((swap) => getAddress(swap.swapExchanges[0]?.poolAddresses[0] ?? ''))
  // What the pools take and give; it differs from the route's amounts only by the declared transfer taxes.
  const poolInput = BigInt(swaps[0]?.swapExchanges[0]?.srcAmount ?? route.srcAmount)
  const poolOutput = BigInt(swaps.at(-1)?.swapExchanges[0]?.destAmount ?? route.destAmount)
  const sell = route.side === 'SELL'
  const options = routerSwapOptions(charge, { quotedAmount: sell ? poolOutput : poolInput, exactOut: false, permit2 })
  const abi = getContractArtifact('MarketRouter').abi
  const functionName = sell ? 'swapExactAmountIn' : 'swapExactAmountOut'
  const names = sell
    ? ['srcToken', 'destToken', 'srcAmount', 'minDestAmount', 'pools', 'beneficiary', 'deadline']
    : ['srcToken', 'destToken', 'maxSrcAmount', 'destAmount', 'pools', 'beneficiary', 'deadline']
  // On a BUY the router buys what the pools must give, so the user gets destAmount after declared taxes.
  const args = [srcToken, destToken, maxSrcAmount, sell ? destAmount : poolOutput, pools, beneficiary, deadline] as const
  return {
    functionName,
    params: {
      ...namedParams(names, args),
      ...(options ? { options: describeSwapOptions(options) } : {}),
    },
    data: encodeFunctionData({ abi, functionName, args: options ? [...args, options] : args }),
    value: srcNative ? maxSrcAmount : 0n,
    srcNative,
    srcToken,
    maxSrcAmount,
    permit2Amount: maxSrcAmount,
  }
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

/** The other side's bound: minimum out on SELL, maximum in on BUY, given directly or from slippage on `quoted`. */
function boundAmount(route: PriceRouteJson, intent: SwapIntent, which: 'src' | 'dest', quoted: bigint): bigint {
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
  const slippage = BigInt(intent.slippage)
  return which === 'dest' ? (quoted * (bps - slippage)) / bps : (quoted * (bps + slippage)) / bps
}

function namedParams(names: readonly string[], args: readonly unknown[]): Record<string, string | string[]> {
  return Object.fromEntries(names.map((name, index) => [name, stringify(args[index])]))
}

function stringify(value: unknown): string | string[] {
  return Array.isArray(value) ? value.map(String) : String(value)
}
