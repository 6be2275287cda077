import { z } from 'zod'
import { integerSchema, wireAddressSchema, wireChainIdSchema } from '../../domain/wire-fields.js'
import type { ApiClient, RequestOptions } from '../client.js'

export type GetTokensParameters = RequestOptions & {
  /** Chain id (default 1). */
  network?: number | undefined
}

const tokenSchema = z.object({
  /** What GET /prices takes in place of an address. */
  symbol: z.string(),
  address: wireAddressSchema,
  decimals: integerSchema,
  network: wireChainIdSchema,
  img: z.string().optional(),
})

export type MarketToken = z.output<typeof tokenSchema>

export type GetTokensReturnType = MarketToken[]

/** GET /tokens: the tokens (and their symbols) Market trades on a chain. */
export function getTokens(client: ApiClient, { signal, timeoutMs, network }: GetTokensParameters = {}): Promise<GetTokensReturnType> {
  return client.request(
    { method: 'GET', endpoint: 'GET /tokens', path: '/tokens', query: { network }, signal, timeoutMs },
    z.object({ tokens: z.array(tokenSchema) }).transform((answer) => answer.tokens),
  )
}
