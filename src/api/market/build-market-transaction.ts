import type { Address, Hex } from 'viem'
import { nativeTokenPlaceholder } from '../../protocol/addresses.js'
import type { ApiClient, ApiRequest, RequestOptions } from '../client.js'
import { type JsonObject, jsonObjectSchema } from '../json.js'
import type { MarketPriceRoute } from './price-route-schema.js'
import { type MarketTransaction, marketTransactionSchema } from './transaction-schema.js'

export type BuildMarketTransactionParameters = RequestOptions & {
  /** The route of getMarketPrices / getQuote / getSwap; its `raw` JSON is sent and its `network` is the path's chainId. */
  priceRoute: Pick<
    MarketPriceRoute,
    'raw' | 'network' | 'side' | 'srcToken' | 'destToken' | 'srcDecimals' | 'destDecimals' | 'srcAmount' | 'destAmount'
  >
  /** The caller (msg.sender). */
  userAddress: Address
  /** Default: the route's (an address or a symbol). */
  srcToken?: Address | string | undefined
  destToken?: Address | string | undefined
  srcDecimals?: number | undefined
  destDecimals?: number | undefined
  /** Default on a SELL: the route's srcAmount. */
  srcAmount?: bigint | undefined
  /** Default on a BUY: the route's destAmount. On a SELL, the minimum out; give it or `slippage`. */
  destAmount?: bigint | undefined
  /** Basis points (250 = 2.5 %), 0 to 10000; needed when the non-fixed amount is omitted. */
  slippage?: number | undefined
  txOrigin?: Address | undefined
  receiver?: Address | undefined
  /** Default: the client's partner. */
  partner?: string | undefined
  partnerAddress?: Address | undefined
  /** 200 = 2 %, with partnerAddress. */
  partnerFeeBps?: number | undefined
  /** Signed permit payload (hex) that replaces the approve. */
  permit?: Hex | undefined
  /** Unix seconds. */
  deadline?: number | undefined
  isCapSurplus?: boolean | undefined
  takeSurplus?: boolean | undefined
  isSurplusToUser?: boolean | undefined
  isDirectFeeTransfer?: boolean | undefined
  /** Query flags. */
  gasPrice?: bigint | undefined
  ignoreChecks?: boolean | undefined
  ignoreGasEstimate?: boolean | undefined
  eip1559?: boolean | undefined
}

export type BuildMarketTransactionReturnType = MarketTransaction

/**
 * POST /transactions/{chainId}: the transaction envelope of a quoted route, to sign and broadcast (`to` is also the
 * spender to approve). With `onlyParams: true` the service answers the router call's parameters instead.
 */
export function buildMarketTransaction(
  client: ApiClient,
  parameters: BuildMarketTransactionParameters & { onlyParams?: false | undefined },
): Promise<BuildMarketTransactionReturnType>
export function buildMarketTransaction(
  client: ApiClient,
  parameters: BuildMarketTransactionParameters & { onlyParams: true },
): Promise<JsonObject>
export function buildMarketTransaction(
  client: ApiClient,
  parameters: BuildMarketTransactionParameters & { onlyParams?: boolean | undefined },
): Promise<BuildMarketTransactionReturnType | JsonObject> {
  const { signal, timeoutMs, priceRoute, gasPrice, ignoreChecks, ignoreGasEstimate, onlyParams, eip1559, ...fields } = parameters
  const request: ApiRequest = {
    method: 'POST',
    endpoint: 'POST /transactions/{chainId}',
    // Section 7: the chain of the build is the route's network.
    path: `/transactions/${priceRoute.network}`,
    query: { gasPrice, ignoreChecks, ignoreGasEstimate, onlyParams, eip1559 },
    body: transactionBody(client, priceRoute, fields),
    signal,
    timeoutMs,
  }
  return onlyParams ? client.request(request, jsonObjectSchema) : client.request(request, marketTransactionSchema)
}

type BodyFields = Omit<
  BuildMarketTransactionParameters,
  'signal' | 'timeoutMs' | 'priceRoute' | 'gasPrice' | 'ignoreChecks' | 'ignoreGasEstimate' | 'eip1559'
>

function transactionBody(client: ApiClient, route: BuildMarketTransactionParameters['priceRoute'], fields: BodyFields) {
  const { srcToken, destToken, srcDecimals, destDecimals, srcAmount, destAmount, partner, partnerFeeBps, ...rest } = fields
  return {
    // Sent exactly as quoted: the hmac covers values, their JSON types and the key order.
    priceRoute: route.raw,
    srcToken: srcToken ?? tokenOfRoute(route.srcToken),
    destToken: destToken ?? tokenOfRoute(route.destToken),
    srcDecimals: srcDecimals ?? route.srcDecimals,
    destDecimals: destDecimals ?? route.destDecimals,
    srcAmount: (srcAmount ?? (route.side === 'SELL' ? route.srcAmount : undefined))?.toString(),
    destAmount: (destAmount ?? (route.side === 'BUY' ? route.destAmount : undefined))?.toString(),
    ...rest,
    partner: partner ?? client.partner,
    partnerFeeBps: partnerFeeBps?.toString(),
  }
}

/** Routes write the native asset in lowercase; requests must spell it in its mixed case. */
function tokenOfRoute(token: Address): string {
  return token.toLowerCase() === nativeTokenPlaceholder.toLowerCase() ? nativeTokenPlaceholder : token
}
