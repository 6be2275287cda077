import type { Address } from 'viem'
import { z } from 'zod'
import type { ApiClient, RequestOptions } from '../client.js'
import { type MarketPriceQuery, marketPriceQuery } from './get-market-prices.js'
import { marketPriceRouteSchema } from './price-route-schema.js'
import { marketTransactionSchema } from './transaction-schema.js'

export type GetSwapParameters = RequestOptions &
  MarketPriceQuery & {
    /** The caller (msg.sender). */
    userAddress: Address
    /** Basis points (250 = 2.5 %). */
    slippage: number
    partnerAddress?: Address | undefined
    /** 200 = 2 %, with partnerAddress. */
    partnerFeeBps?: number | undefined
    takeSurplus?: boolean | undefined
    isCapSurplus?: boolean | undefined
    isSurplusToUser?: boolean | undefined
    isDirectFeeTransfer?: boolean | undefined
  }

const swapSchema = z.object({ priceRoute: marketPriceRouteSchema, txParams: marketTransactionSchema })

/** The route and a transaction for it (no `gas`: estimate it before broadcasting). */
export type GetSwapReturnType = z.output<typeof swapSchema>

/** GET /swap: price and build in one call (lower rate limits than /prices, no RFQ liquidity). Always version 6.2. */
export function getSwap(client: ApiClient, parameters: GetSwapParameters): Promise<GetSwapReturnType> {
  const { signal, timeoutMs, ...query } = parameters
  return client.request(
    { method: 'GET', endpoint: 'GET /swap', path: '/swap', query: marketPriceQuery(client, query), signal, timeoutMs },
    swapSchema,
  )
}
