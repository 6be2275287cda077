import { makerRegistryOf } from '../makers/maker-registry.js'
import { type MakerFill, quoteMakers, unitMakerFill } from '../makers/quote-makers.js'
import type { SandboxVenue } from '../venue/sandbox-venue.js'
import { makerExchangeName, makersAllowed } from './exchanges.js'
import type { OtherExchangePrice, PriceRouteSwap } from './price-route.js'
import type { PricesQuery } from './prices-query.js'
import type { PriceRequest } from './resolve-price-request.js'
import type { SwapRoute } from './route-finder.js'

/**
 * Gas of a maker fill through the sandbox router (pull from the user, approve, the RFQ contract's fill with its
 * signature check and two transfers), as measured on the sandbox's contracts.
 */
export const rfqFillGas = 165_000

/**
 * The best fill registered makers offer for the request, when maker liquidity may route: ERC-20s on both sides (RFQ
 * never carries the native asset), no multi-token `route`, `excludeRFQ` off, AugustusRFQ not filtered out by
 * `includeDEXS` / `excludeDEXS`, and makers that blacklisted `userAddress` skipped.
 */
export function findMakerFill(venue: SandboxVenue, request: PriceRequest, query: PricesQuery): MakerFill | undefined {
  if (request.src.native || request.dest.native) return undefined
  if (request.tokenPath && request.tokenPath.length !== 2) return undefined
  if (!makersAllowed({ include: query.includeDEXS, exclude: query.excludeDEXS, excludeRFQ: query.excludeRFQ })) return undefined
  const makers = makerRegistryOf(venue)?.onChain(request.chain.chainId) ?? []
  if (makers.length === 0) return undefined
  return quoteMakers({
    makers,
    srcToken: request.src.poolToken,
    destToken: request.dest.poolToken,
    side: query.side,
    amount: query.amount,
    user: query.userAddress,
  })
}

/** More out on SELL, less in on BUY than the pools' route (or the pools have none). */
export function makerBeatsPools(fill: MakerFill, pools: SwapRoute | undefined, side: 'SELL' | 'BUY'): boolean {
  if (!pools) return true
  return side === 'SELL' ? fill.destAmount > pools.destAmount : fill.srcAmount < pools.srcAmount
}

/** The route's one swap: the whole amount from one maker, as a swap exchange named AugustusRFQ. */
export function describeMakerSwap(request: PriceRequest, fill: MakerFill, gasUsd: string): PriceRouteSwap {
  const bookSide = fill.src === 'base' ? 'bid' : 'ask'
  const pairTokens = `${fill.pair.base.address.toLowerCase()}_${fill.pair.quote.address.toLowerCase()}`
  return {
    srcToken: request.src.wire,
    srcDecimals: request.src.decimals,
    destToken: request.dest.wire,
    destDecimals: request.dest.decimals,
    swapExchanges: [
      {
        exchange: makerExchangeName,
        srcAmount: fill.srcAmount.toString(),
        destAmount: fill.destAmount.toString(),
        percent: 100,
        poolAddresses: [request.chain.fixture.contracts.rfq.toLowerCase()],
        poolIdentifiers: [`${makerExchangeName.toLowerCase()}_${fill.maker.name}_${pairTokens}_${bookSide}`],
        data: { maker: fill.maker.name, pair: fill.pair.id, gasUSD: gasUsd },
      },
    ],
  }
}

/** How much worse the whole fill is than the grid's price for one token, in percent (like a pool route's impact). */
export function makerPriceImpactPercent(fill: MakerFill, side: 'SELL' | 'BUY', amountDecimals: number): number {
  const unit = unitMakerFill(fill, side)
  if (unit === undefined || unit === 0n) return 0
  const scale = 10n ** BigInt(amountDecimals)
  const amount = side === 'SELL' ? fill.srcAmount : fill.destAmount
  const actual = side === 'SELL' ? fill.destAmount : fill.srcAmount
  const atUnitPrice = Number((amount * unit) / scale)
  if (atUnitPrice === 0) return 0
  const worse = side === 'SELL' ? atUnitPrice - Number(actual) : Number(actual) - atUnitPrice
  return Math.max(0, (worse / atUnitPrice) * 100)
}

/** The maker's entry of `others` (`otherExchangePrices=true`). */
export function makerOtherPrice(fill: MakerFill, side: 'SELL' | 'BUY', gasUsd: string): OtherExchangePrice {
  return {
    exchange: makerExchangeName,
    srcAmount: fill.srcAmount.toString(),
    destAmount: fill.destAmount.toString(),
    unit: (unitMakerFill(fill, side) ?? 0n).toString(),
    data: { gasUSD: gasUsd },
  }
}
