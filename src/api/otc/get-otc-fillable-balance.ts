import type { Address } from 'viem'
import { type BalanceMap, balanceMapSchema } from '../../domain/wire-fields.js'
import type { ApiClient, RequestOptions } from '../client.js'

export type GetOtcFillableBalanceParameters = RequestOptions & {
  chainId: number
  account: Address
  /** Scope the answer to one token. */
  token?: Address | undefined
}

/** Lowercase token address → raw amount reserved by the account's live orders (section 2.7). */
export type GetOtcFillableBalanceReturnType = BalanceMap

/** GET /ft/fillablebalance/{chainId}/{account}[/{token}]. */
export function getOtcFillableBalance(
  client: ApiClient,
  { signal, timeoutMs, chainId, account, token }: GetOtcFillableBalanceParameters,
): Promise<GetOtcFillableBalanceReturnType> {
  const scoped = token === undefined ? '' : `/${encodeURIComponent(token)}`
  return client.request(
    {
      method: 'GET',
      endpoint: `GET /ft/fillablebalance/{chainId}/{account}${token === undefined ? '' : '/{token}'}`,
      path: `/ft/fillablebalance/${chainId}/${encodeURIComponent(account)}${scoped}`,
      signal,
      timeoutMs,
    },
    balanceMapSchema,
  )
}
