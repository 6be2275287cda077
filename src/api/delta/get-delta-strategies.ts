import { z } from 'zod'
import { wireAddressSchema } from '../../domain/wire-fields.js'
import type { ApiClient, RequestOptions } from '../client.js'

export type GetDeltaStrategiesParameters = RequestOptions & { chainId: number }

const strategySchema = z.object({
  /** ERC-4626 vault: the `strategy` of a ProductiveOrder build. */
  vault: wireAddressSchema,
  name: z.string(),
  /** Decimal strings ("0.052" = 5.2 %). */
  apr: z.object({ gross: z.string(), net: z.string() }).nullable(),
})

const tokenStrategiesSchema = z.object({
  /** The Delta token (dToken) wrapper. */
  address: wireAddressSchema,
  strategies: z.array(strategySchema),
})

const strategiesSchema = z
  .record(z.string(), tokenStrategiesSchema)
  .transform((byToken) => Object.fromEntries(Object.entries(byToken).map(([token, entry]) => [token.toLowerCase(), entry])))

/** Lowercase underlying token address → its dToken wrapper and strategies. */
export type GetDeltaStrategiesReturnType = z.output<typeof strategiesSchema>

/** GET /v2/delta/prices/strategies/{chainId}: Delta yield strategies with APR. */
export function getDeltaStrategies(
  client: ApiClient,
  { signal, timeoutMs, chainId }: GetDeltaStrategiesParameters,
): Promise<GetDeltaStrategiesReturnType> {
  return client.request(
    {
      method: 'GET',
      endpoint: 'GET /v2/delta/prices/strategies/{chainId}',
      path: `/v2/delta/prices/strategies/${chainId}`,
      signal,
      timeoutMs,
    },
    strategiesSchema,
  )
}
