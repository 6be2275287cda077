import type { Address } from 'viem'
import { type BalanceMap, balanceMapSchema } from '../../domain/wire-fields.js'
import type { ApiClient, RequestOptions } from '../client.js'

export type GetDeltaFillableBalanceParameters = RequestOptions & {
  chainId: number
  userAddress: Address
  /** Scope the answer to one token. */
  tokenAddress?: Address | undefined
}

/** Lowercase token address → raw amount still free for new limit orders. */
export type GetDeltaFillableBalanceReturnType = BalanceMap

/** GET /v2/delta/orders/fillablebalance/{chainId}/{userAddress}[/{tokenAddress}]: sizing of new limit orders. */
export function getDeltaFillableBalance(
  client: ApiClient,
  { signal, timeoutMs, chainId, userAddress, tokenAddress }: GetDeltaFillableBalanceParameters,
): Promise<GetDeltaFillableBalanceReturnType> {
  const token = tokenAddress === undefined ? '' : `/${encodeURIComponent(tokenAddress)}`
  return client.request(
    {
      method: 'GET',
      endpoint: `GET /v2/delta/orders/fillablebalance/{chainId}/{userAddress}${tokenAddress === undefined ? '' : '/{tokenAddress}'}`,
      path: `/v2/delta/orders/fillablebalance/${chainId}/${encodeURIComponent(userAddress)}${token}`,
      signal,
      timeoutMs,
    },
    balanceMapSchema,
  )
}
