import type { Address } from 'viem'
import { z } from 'zod'
import type { Side } from '../../domain/wire-fields.js'
import type { ApiClient, ApiRequest, RequestOptions } from '../client.js'
import { type MarketPriceRoute, marketPriceRouteSchema } from './price-route-schema.js'

/** The query of GET /prices (section 4.2), also the pricing part of GET /swap. */
export type MarketPriceQuery = {
  /** An address, or a token symbol; the native asset is 0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE (mixed case exactly). */
  srcToken: Address | string
  destToken: Address | string
  /** May be omitted when a symbol is used. */
  srcDecimals?: number | undefined
  destDecimals?: number | undefined
  /** Raw units: srcToken amount of a SELL, destToken amount of a BUY. */
  amount: bigint
  side?: Side | undefined
  /** Chain id (default 1). */
  network?: number | undefined
  otherExchangePrices?: boolean | undefined
  includeDEXS?: readonly string[] | undefined
  excludeDEXS?: readonly string[] | undefined
  excludeRFQ?: boolean | undefined
  includeContractMethods?: readonly string[] | undefined
  excludeContractMethods?: readonly string[] | undefined
  userAddress?: Address | undefined
  /** Tokens of the path, srcToken first, destToken last, at most 4 (sent dash-separated). */
  route?: readonly string[] | undefined
  /** Default: the client's partner. */
  partner?: string | undefined
  /**
   * The partner's own fee on top of its registered one, basis points (50 = 0.5 %); the route states the sum in
   * `partnerFee` and the SELL output net of it in `destAmountAfterFee`. Send the same value to the build.
   */
  partnerFeeBps?: number | undefined
  /** Percent (default 15). */
  maxImpact?: number | undefined
  receiver?: Address | undefined
  /** Transfer taxes, basis points. */
  srcTokenTransferFee?: number | undefined
  destTokenTransferFee?: number | undefined
  srcTokenDexTransferFee?: number | undefined
  destTokenDexTransferFee?: number | undefined
  excludeContractMethodsWithoutFeeModel?: boolean | undefined
  ignoreBadUsdPrice?: boolean | undefined
}

export type GetMarketPricesParameters = RequestOptions & MarketPriceQuery

export type GetMarketPricesReturnType = MarketPriceRoute

/** The wire query of a Market price: always version 6.2 (routes for the v6.2 router, the only one this client builds for). */
export function marketPriceQuery(client: ApiClient, { route, partner, ...query }: MarketPriceQuery) {
  return { ...query, route: route?.join('-'), partner: partner ?? client.partner, version: '6.2' }
}

/** The answer of GET /prices: its route. */
export const marketPricesAnswerSchema = z.object({ priceRoute: marketPriceRouteSchema }).transform((answer) => answer.priceRoute)

/** The request of GET /prices; built once, it may be sent again and again (a feed polls the same price). */
export function marketPricesRequest(client: ApiClient, parameters: GetMarketPricesParameters): ApiRequest {
  const { signal, timeoutMs, ...query } = parameters
  return { method: 'GET', endpoint: 'GET /prices', path: '/prices', query: marketPriceQuery(client, query), signal, timeoutMs }
}

/** GET /prices: the best Market route of a swap; pass it to buildMarketTransaction within about 30 s. */
export function getMarketPrices(client: ApiClient, parameters: GetMarketPricesParameters): Promise<GetMarketPricesReturnType> {
  return client.request(marketPricesRequest(client, parameters), marketPricesAnswerSchema)
}
