import type { Address } from 'viem'
import { ApiError } from '../server/api-error.js'
import type { ChainVenue } from '../venue/chain-venue.js'
import type { SandboxVenue } from '../venue/sandbox-venue.js'
import { exchangeNames, filterPoolsByExchange, makerExchangeName } from './exchanges.js'
import { marketErrors } from './market-errors.js'
import { checkTokenDecimals, type MarketToken, requireDecimalsOfUnlisted, resolveMarketToken } from './market-token.js'
import type { PricesQuery } from './prices-query.js'
import type { PoolState } from './route-finder.js'
import { requireRunningChain } from './running-chain.js'

/** The service's limit on the `route` parameter. */
export const maxRouteTokens = 4

/** A GET /prices query checked against one chain: its tokens, the pools it may use and an optional token path. */
export type PriceRequest = {
  chain: ChainVenue
  src: MarketToken
  dest: MarketToken
  pools: PoolState[]
  /** Pool tokens (lowercase) the route must follow, from the `route` parameter. */
  tokenPath: Address[] | undefined
}

export function resolvePriceRequest(venue: SandboxVenue, query: PricesQuery): PriceRequest {
  const chain = requireRunningChain(venue, query.network)
  requireDecimalsOfUnlisted(chain, query.srcToken, query.srcDecimals, 'src')
  requireDecimalsOfUnlisted(chain, query.destToken, query.destDecimals, 'dest')
  const src = resolveMarketToken(chain, query.srcToken, 'src')
  const dest = resolveMarketToken(chain, query.destToken, 'dest')
  checkTokenDecimals(src, query.srcDecimals, 'src')
  checkTokenDecimals(dest, query.destDecimals, 'dest')
  if (src.poolToken === dest.poolToken) {
    if (src.native !== dest.native) {
      throw new ApiError(marketErrors.noRoutes, {
        message: `${marketErrors.noRoutes.message}: ${src.symbol} to ${dest.symbol} is a wrap, not a swap; call deposit / withdraw on WETH (${chain.wrappedNative.address})`,
      })
    }
    throw new ApiError(marketErrors.invalidTokens, { message: `Invalid tokens: srcToken and destToken are both ${src.symbol}` })
  }
  const pools = exchangeNames(chain.pools)
  const known = [...pools, makerExchangeName]
  const unknown = (query.includeDEXS ?? []).filter((name) => !known.some((exchange) => exchange.toLowerCase() === name.toLowerCase()))
  if (unknown.length > 0) {
    throw new ApiError(marketErrors.invalidDex, {
      message: `Invalid DEX: ${unknown.join(', ')} (the sandbox's exchanges are ${pools.join(', ')}); market makers route as ${makerExchangeName}`,
    })
  }
  return {
    chain,
    src,
    dest,
    pools: filterPoolsByExchange(chain.pools, { include: query.includeDEXS, exclude: query.excludeDEXS }),
    tokenPath: query.route === undefined ? undefined : resolveTokenPath(chain, query.route, src, dest),
  }
}

function resolveTokenPath(chain: ChainVenue, route: string, src: MarketToken, dest: MarketToken): Address[] {
  const entries = route.split('-').map((entry) => entry.trim())
  if (entries.length < 2 || entries.length > maxRouteTokens) {
    throw new ApiError(marketErrors.invalidRoute, {
      message: `Invalid route: expected 2 to ${maxRouteTokens} dash-separated tokens, received ${entries.length}`,
    })
  }
  const path = entries.map((entry, index) => resolveMarketToken(chain, entry, index === 0 ? 'src' : 'dest').poolToken)
  if (path[0] !== src.poolToken || path.at(-1) !== dest.poolToken) {
    throw new ApiError(marketErrors.invalidRoute, {
      message: `Invalid route: it must start at srcToken (${src.symbol}) and end at destToken (${dest.symbol}), received "${route}"`,
    })
  }
  return path
}
