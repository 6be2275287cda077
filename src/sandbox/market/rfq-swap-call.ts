import { encodeFunctionData, getAddress, type Hex } from 'viem'
import { firmOrderToWire } from '../../protocol/maker-wire.js'
import { getContractArtifact } from '../contracts/compile.js'
import { makerRegistryOf } from '../makers/maker-registry.js'
import { FirmQuoteError, requestFirmFill } from '../makers/request-firm-fill.js'
import { ApiError } from '../server/api-error.js'
import type { SandboxVenue } from '../venue/sandbox-venue.js'
import { makerExchangeName } from './exchanges.js'
import { marketErrors } from './market-errors.js'
import { partnerFeeOn } from './partner-fee.js'
import type { PriceRouteJson } from './price-route.js'
import { checkSwapTerms, type SwapCall, type SwapIntent } from './swap-call.js'
import { describeSwapOptions, type PartnerCharge, routerSwapOptions } from './swap-options.js'

/** Whether the route is filled from a market maker (its one swap exchange is AugustusRFQ). */
export function isMakerRoute(route: PriceRouteJson): boolean {
  return route.bestRoute[0]?.swaps[0]?.swapExchanges[0]?.exchange === makerExchangeName
}

/**
 * Builds the router call of a maker route: checks the intent as for a pool route, asks the route's maker for a firm
 * order for this user with the router as taker, checks it, and encodes `swapOnAugustusRFQTryBatchFill` (SELL: the
 * whole source, at least the user's minimum out; BUY: the least source that buys the destination, at most the user's
 * maximum with the partner fee). The firm quote is asked for `txOrigin` when given (the person behind an intermediary
 * contract, whom the maker screens). A maker that is gone or whose firm answer fails → `Stale priceRoute` (re-quote).
 */
export async function planRfqSwapCall(
  venue: SandboxVenue,
  route: PriceRouteJson,
  intent: SwapIntent,
  nowSeconds: number,
  permit2?: Hex,
): Promise<SwapCall> {
  const terms = checkSwapTerms(route, intent, nowSeconds)
  const name = route.bestRoute[0]?.swaps[0]?.swapExchanges[0]?.data.maker
  const maker = name === undefined ? undefined : makerRegistryOf(venue)?.get(name)
  if (!maker || maker.chainId !== route.network) throw routeGone(`its market maker ${name ?? '(unnamed)'} is no longer registered`)
  const srcToken = getAddress(route.srcToken)
  const destToken = getAddress(route.destToken)
  let fill: Awaited<ReturnType<typeof requestFirmFill>>
  try {
    fill = await requestFirmFill(maker, {
      srcToken,
      destToken,
      side: route.side,
      amount: terms.fixedAmount,
      bound: terms.boundAmount,
      user: getAddress(intent.txOrigin ?? intent.userAddress),
    })
  } catch (error) {
    if (error instanceof FirmQuoteError) throw routeGone(`the market maker's firm quote failed: ${error.shortMessage}`)
    throw error
  }
  // SELL: the user's minimum out; BUY: the exact amount bought (the maker's rounded-down share covers it).
  const minMakerFill = terms.destAmount
  const sell = route.side === 'SELL'
  const quoted = BigInt(sell ? route.destAmount : route.srcAmount)
  const maxSrcAmount = sell ? fill.takerFill : fill.takerFill + mostPaidOnTop(terms.charge, quoted, fill.takerFill)
  if (!sell && maxSrcAmount > terms.boundAmount) {
    throw routeGone(`the maker's fill of ${fill.takerFill} plus the partner's share exceeds the user's maximum of ${terms.boundAmount}`)
  }
  const options = routerSwapOptions(terms.charge, { quotedAmount: quoted, exactOut: !sell, permit2 })
  const args = [fill.order, fill.signature, fill.takerFill, minMakerFill, terms.beneficiary, terms.deadline] as const
  const { signature, ...order } = firmOrderToWire({ ...fill.order, expiry: Number(fill.order.expiry), signature: fill.signature })
  return {
    functionName: 'swapOnAugustusRFQTryBatchFill',
    params: {
      order,
      signature: String(signature),
      takerFill: fill.takerFill.toString(),
      minMakerFill: minMakerFill.toString(),
      beneficiary: terms.beneficiary,
      deadline: terms.deadline.toString(),
      ...(options ? { options: describeSwapOptions(options) } : {}),
    },
    data: encodeFunctionData({
      abi: getContractArtifact('MarketRouter').abi,
      functionName: 'swapOnAugustusRFQTryBatchFill',
      args: options ? [...args, options] : args,
    }),
    value: 0n,
    srcNative: false,
    srcToken,
    maxSrcAmount,
    // A BUY's pull (the fill plus the partner's share) is known only now: no signature transfer can have signed it.
    permit2Amount: sell ? fill.takerFill : undefined,
  }
}

/** On a BUY, the most the router adds to the fill for the partner: the fee, or the surplus it may collect. */
function mostPaidOnTop(charge: PartnerCharge, quoted: bigint, takerFill: bigint): bigint {
  if (charge.feeBps > 0) return partnerFeeOn(takerFill, charge.feeBps)
  if (!charge.collectsSurplus || quoted <= takerFill) return 0n
  const surplus = quoted - takerFill
  const cap = charge.capSurplus ? quoted / 100n : surplus
  return surplus < cap ? surplus : cap
}

function routeGone(detail: string): ApiError {
  return new ApiError(marketErrors.rfqQuoteFailed, {
    message: `Stale priceRoute: this route can no longer be built (${detail}); re-quote with GET /prices`,
  })
}
