import type { Address } from 'viem'
import { z } from 'zod'
import type { ApiClient, RequestOptions } from '../client.js'

export type IsTokenSupportedParameters = RequestOptions & { chainId: number; token: Address }

export type IsTokenSupportedReturnType = boolean

/** GET /v2/delta/prices/is-token-supported: whether Delta trades the token on the chain. */
export function isTokenSupported(
  client: ApiClient,
  { signal, timeoutMs, chainId, token }: IsTokenSupportedParameters,
): Promise<IsTokenSupportedReturnType> {
  return client.request(
    {
      method: 'GET',
      endpoint: 'GET /v2/delta/prices/is-token-supported',
      path: '/v2/delta/prices/is-token-supported',
      query: { chainId, token },
      signal,
      timeoutMs,
    },
    z.object({ supported: z.boolean() }).transform((answer) => answer.supported),
  )
}
