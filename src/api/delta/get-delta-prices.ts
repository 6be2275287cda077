import type { Address } from 'viem'
import type { Side } from '../../domain/wire-fields.js'
import type { ApiClient, ApiRequest, RequestOptions } from '../client.js'
import { type DeltaPrice, deltaPriceSchema } from './delta-price-schema.js'

export type GetDeltaPricesParameters = RequestOptions & {
  /** Source chain. */
  chainId: number
  srcToken: Address
  /** On destChainId for a crosschain quote. */
  destToken: Address
  /** Raw units: the source amount of a SELL, the destination amount of a BUY. */
  amount: bigint
  srcDecimals: number
  destDecimals: number
  side?: Side | undefined
  /** Omit for same-chain. */
  destChainId?: number | undefined
  userAddress?: Address | undefined
  /** Receiver of the destination token (default userAddress). */
  beneficiary?: Address | undefined
  /** Default: the client's partner. */
  partner?: string | undefined
  /** 0 to 200. */
  partnerFeeBps?: number | undefined
  /** Percent (default 15). */
  maxImpact?: number | undefined
  maxUSDImpact?: number | undefined
  includeAgents?: readonly string[] | undefined
  excludeAgents?: readonly string[] | undefined
  includeBridges?: readonly string[] | undefined
  excludeBridges?: readonly string[] | undefined
  /** Default true; the service forces false for BUY. */
  allowBridgeAndSwap?: boolean | undefined
}

export type GetDeltaPricesReturnType = DeltaPrice

/**
 * GET /v2/delta/prices: the recommended route (and crosschain alternatives) of a Delta swap, and the spender to
 * approve. An amount whose settlement gas is worth more than the trade throws GasCostExceedsTradeAmountError.
 */
export function getDeltaPrices(client: ApiClient, parameters: GetDeltaPricesParameters): Promise<GetDeltaPricesReturnType> {
  return client.request(deltaPricesRequest(client, parameters), deltaPriceSchema)
}

/** The request of GET /v2/delta/prices; built once, it may be sent again and again (a feed polls the same price). */
export function deltaPricesRequest(client: ApiClient, parameters: GetDeltaPricesParameters): ApiRequest {
  const { signal, timeoutMs, partner, ...query } = parameters
  return {
    method: 'GET',
    endpoint: 'GET /v2/delta/prices',
    path: '/v2/delta/prices',
    query: { ...query, partner: partner ?? client.partner },
    signal,
    timeoutMs,
  }
}
