import { type Address, formatUnits } from 'viem'
import { ApiError } from '../server/api-error.js'
import { parseRequestPart } from '../server/validate.js'
import type { SandboxVenue } from '../venue/sandbox-venue.js'
import { exchangeName, exchangeNames } from './exchanges.js'
import { gasPerPool, routeGas } from './gas-calibration.js'
import { describeMakerSwap, findMakerFill, makerBeatsPools, makerOtherPrice, makerPriceImpactPercent, rfqFillGas } from './maker-route.js'
import { type MarketChainState, marketChainState } from './market-chain-state.js'
import { marketErrors } from './market-errors.js'
import { partnerFeeOn, partnerFeePercent } from './partner-fee.js'
import {
  contractMethodOf,
  type OtherExchangePrice,
  type PriceRouteJson,
  type PriceRouteSwap,
  rfqContractMethod,
  routerByVersion,
} from './price-route.js'
import { type PricesQuery, type PricesQueryInput, pricesQuerySchema } from './prices-query.js'
import { type PriceRequest, resolvePriceRequest } from './resolve-price-request.js'
import { findBestRoute, priceImpactPercent, type SwapRoute } from './route-finder.js'
import { issuedRoutes } from './route-integrity.js'
import { hasTransferTaxes, outputForUser, outputToUser, sourceForPools, sourceIntoPools } from './transfer-taxes.js'

/**
 * Prices a Market route exactly as `GET /prices` does and registers it for `POST /transactions`: the same object
 * the endpoint returns as `priceRoute` (the unified quote embeds it as `market`). A registered market maker takes
 * the whole route when its grid beats the pools (more out on SELL, less in on BUY). Declared transfer taxes make
 * `srcAmount` / `destAmount` what the user sends and receives (the swaps show what the pools take and give); makers
 * are left out then. `destAmountAfterFee` is `destAmount` less the `partnerFeeBps` of the query on a SELL (on a BUY the
 * fee is paid in the source on top of `srcAmount`). `query` is the wire form of the GET /prices query; invalid input
 * throws the endpoint's `ApiError`.
 *
 * @example
 * const market = await buildPriceRoute(venue, { srcToken: 'ETH', destToken: 'USDC', amount: '10000000000000000', version: '6.2' })
 */
export async function buildPriceRoute(venue: SandboxVenue, query: PricesQueryInput | Record<string, unknown>): Promise<PriceRouteJson> {
  return (await quotePriceRoute(venue, query)).route
}

/** `buildPriceRoute` plus the route's JSON as tagged (GET /prices sends it without serialising again). */
export async function quotePriceRoute(
  venue: SandboxVenue,
  rawQuery: PricesQueryInput | Record<string, unknown>,
): Promise<{ route: PriceRouteJson; json: string }> {
  const query = parseRequestPart(pricesQuerySchema, rawQuery, 'query')
  const request = resolvePriceRequest(venue, query)
  const state = marketChainState(request.chain)
  await state.ready()
  const taxed = hasTransferTaxes(query)
  // What the pools must take (SELL) or give (BUY) for the user's amount after the declared taxes.
  const poolAmount = query.side === 'SELL' ? sourceIntoPools(query.amount, query) : outputForUser(query.amount, query)
  const pools = findBestRoute({
    pools: request.pools,
    srcToken: request.src.poolToken,
    destToken: request.dest.poolToken,
    amount: poolAmount,
    side: query.side,
    ...(request.tokenPath ? { tokenPath: request.tokenPath, maxHops: request.tokenPath.length - 1 } : {}),
  })
  const makerFill = taxed ? undefined : findMakerFill(venue, request, query)
  const makerMethod = query.version === '6.2' ? rfqContractMethod : contractMethodOf(query.version, query.side, 1)
  // The maker takes the whole route when it beats the pools and its contract method is not filtered out.
  const chosen =
    makerFill && makerBeatsPools(makerFill, pools, query.side) && contractMethodAllowed(makerMethod, query)
      ? ({ kind: 'maker', fill: makerFill, contractMethod: makerMethod } as const)
      : pools
        ? ({ kind: 'pools', route: pools, contractMethod: contractMethodOf(query.version, query.side, pools.hops.length) } as const)
        : undefined
  if (!chosen) throw new ApiError(marketErrors.noRoutes)
  const { contractMethod } = chosen
  if (!contractMethodAllowed(contractMethod, query)) {
    throw new ApiError(marketErrors.noRoutes, {
      message: `${marketErrors.noRoutes.message} (the only contract method for this route, ${contractMethod}, is filtered out by includeContractMethods / excludeContractMethods)`,
    })
  }
  const usd = { src: state.usdPerToken(request.src.poolToken), dest: state.usdPerToken(request.dest.poolToken) }
  if ((usd.src === 0 || usd.dest === 0) && !query.ignoreBadUsdPrice) {
    throw new ApiError(marketErrors.badUsdPrice, {
      message: `Bad USD Price: no USD price for ${usd.src === 0 ? request.src.symbol : request.dest.symbol}; pass ignoreBadUsdPrice=true`,
    })
  }
  const gasUsd = (units: number) => gasCostUsd(state, units)
  const poolGas = pools ? routeGas(state.gasTable, query.side, pools.hops.length, request.src.native, request.dest.native) : 0
  const gas = chosen.kind === 'maker' ? rfqFillGas : poolGas
  const amounts =
    chosen.kind === 'maker'
      ? chosen.fill
      : query.side === 'SELL'
        ? { srcAmount: query.amount, destAmount: outputToUser(chosen.route.destAmount, query) }
        : { srcAmount: sourceForPools(chosen.route.srcAmount, query), destAmount: query.amount }
  const feeBps = query.partnerFeeBps ?? 0
  const destAmountAfterFee = query.side === 'SELL' ? amounts.destAmount - partnerFeeOn(amounts.destAmount, feeBps) : amounts.destAmount
  const impact =
    chosen.kind === 'maker'
      ? makerPriceImpactPercent(chosen.fill, query.side, query.side === 'SELL' ? request.src.decimals : request.dest.decimals)
      : priceImpactPercent(chosen.route)
  const { contractAddress, tokenTransferProxy } = routerByVersion[query.version]
  const route = {
    blockNumber: Number(request.chain.blockNumber),
    network: request.chain.chainId,
    srcToken: request.src.wire,
    srcDecimals: request.src.decimals,
    srcAmount: amounts.srcAmount.toString(),
    destToken: request.dest.wire,
    destDecimals: request.dest.decimals,
    destAmount: amounts.destAmount.toString(),
    bestRoute: [
      {
        percent: 100,
        swaps:
          chosen.kind === 'maker'
            ? [describeMakerSwap(request, chosen.fill, gasUsd(rfqFillGas))]
            : describeSwaps(request, chosen.route, gasUsd(gasPerPool(state.gasTable))),
      },
    ],
    gasCostUSD: gasUsd(gas),
    gasCost: String(gas),
    side: query.side,
    version: query.version,
    contractAddress,
    tokenTransferProxy,
    contractMethod,
    partnerFee: partnerFeePercent(feeBps),
    srcUSD: formatUsd(amounts.srcAmount, request.src.decimals, usd.src),
    destUSD: formatUsd(amounts.destAmount, request.dest.decimals, usd.dest),
    destAmountAfterFee: destAmountAfterFee.toString(),
    partner: query.partner,
    maxImpactReached: impact > query.maxImpact,
    ...(query.otherExchangePrices
      ? {
          others: [
            ...otherExchangePrices(request, query, poolAmount, gasUsd(poolGas)),
            ...(makerFill ? [makerOtherPrice(makerFill, query.side, gasUsd(rfqFillGas))] : []),
          ],
        }
      : {}),
  }
  const { hmac, json } = issuedRoutes(venue).issue(route)
  return { route: { ...route, hmac }, json }
}

function describeSwaps(request: PriceRequest, found: SwapRoute, hopGasUsd: string): PriceRouteSwap[] {
  const last = found.hops.length - 1
  return found.hops.map((hop, index) => {
    const exchange = exchangeName(hop.pool)
    const pool = hop.pool.address.toLowerCase()
    return {
      srcToken: index === 0 ? request.src.wire : hop.tokenIn,
      srcDecimals: decimalsOf(request, hop.tokenIn),
      destToken: index === last ? request.dest.wire : hop.tokenOut,
      destDecimals: decimalsOf(request, hop.tokenOut),
      swapExchanges: [
        {
          exchange,
          srcAmount: hop.amountIn.toString(),
          destAmount: hop.amountOut.toString(),
          percent: 100,
          poolAddresses: [pool],
          poolIdentifiers: [`${exchange.toLowerCase()}_${pool}`],
          data: { tokenIn: hop.tokenIn, tokenOut: hop.tokenOut, feeBps: Number(hop.pool.feeBps), gasUSD: hopGasUsd },
        },
      ],
    }
  })
}

/** Each exchange's own best price for the same trade (`otherExchangePrices=true`). */
function otherExchangePrices(request: PriceRequest, query: PricesQuery, poolAmount: bigint, gasUsd: string): OtherExchangePrice[] {
  const others: OtherExchangePrice[] = []
  for (const exchange of exchangeNames(request.pools)) {
    const pools = request.pools.filter((pool) => exchangeName(pool) === exchange)
    const find = (amount: bigint) =>
      findBestRoute({
        pools,
        srcToken: request.src.poolToken,
        destToken: request.dest.poolToken,
        amount,
        side: query.side,
        ...(request.tokenPath ? { tokenPath: request.tokenPath, maxHops: request.tokenPath.length - 1 } : {}),
      })
    const route = find(poolAmount)
    if (!route) continue
    const unitRoute = find(10n ** BigInt(query.side === 'SELL' ? request.src.decimals : request.dest.decimals))
    const unit = unitRoute ? (query.side === 'SELL' ? unitRoute.destAmount : unitRoute.srcAmount) : 0n
    others.push({
      exchange,
      srcAmount: route.srcAmount.toString(),
      destAmount: route.destAmount.toString(),
      unit: unit.toString(),
      data: { gasUSD: gasUsd },
    })
  }
  return others
}

function contractMethodAllowed(method: string, query: PricesQuery): boolean {
  const lower = method.toLowerCase()
  const included = query.includeContractMethods
  if (included && included.length > 0 && !included.some((name) => name.toLowerCase() === lower)) return false
  return !(query.excludeContractMethods ?? []).some((name) => name.toLowerCase() === lower)
}

function decimalsOf(request: PriceRequest, poolToken: Address): number {
  if (poolToken === request.src.poolToken) return request.src.decimals
  if (poolToken === request.dest.poolToken) return request.dest.decimals
  return request.chain.tokenByAddress(poolToken)?.decimals ?? 18
}

/** Gas units at the chain's gas price, in USD at the pools' WETH price, as production writes it (6 decimals). */
function gasCostUsd(state: MarketChainState, units: number): string {
  const wei = BigInt(units) * state.gasPrice()
  return (Number(formatUnits(wei, 18)) * state.usdPerToken(state.chain.wrappedNative.address)).toFixed(6)
}

/** srcUSD / destUSD as production writes them (10 decimals). */
function formatUsd(amount: bigint, decimals: number, usdPerToken: number): string {
  return (Number(formatUnits(amount, decimals)) * usdPerToken).toFixed(10)
}
