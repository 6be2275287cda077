import { z } from 'zod'
import type { ApiClient } from './client.js'
import { type DeltaPrice, deltaPriceSchema } from './delta/delta-price-schema.js'
import type { GetDeltaPricesParameters } from './delta/get-delta-prices.js'
import { type MarketPriceRoute, marketPriceRouteSchema } from './market/price-route-schema.js'

export type QuoteMode = 'DELTA' | 'MARKET' | 'ALL'

/** The parameters of a Delta price that /v2/quote also takes, plus the mode. */
export type GetQuoteParameters = Pick<
  GetDeltaPricesParameters,
  | 'signal'
  | 'timeoutMs'
  | 'chainId'
  | 'srcToken'
  | 'destToken'
  | 'amount'
  | 'srcDecimals'
  | 'destDecimals'
  | 'side'
  | 'destChainId'
  | 'userAddress'
  | 'beneficiary'
  | 'partner'
  | 'partnerFeeBps'
> & {
  /** DELTA: a Delta price only; MARKET: a Market route only; ALL (the service's default): the better one. */
  mode?: QuoteMode | undefined
}

const fallbackReasonSchema = z.object({ errorType: z.string().optional(), details: z.string().optional() })

/**
 * What to do next depends on the block (section 5.5): `delta` → approve the Delta contract (`delta.spender`), build,
 * sign, submit; `market` → approve the Market router, build the transaction, broadcast. `fallbackReason` says why
 * Delta could not price when the service fell back to Market.
 */
export type QuoteResult =
  | { mode: 'delta'; delta: DeltaPrice }
  | { mode: 'market'; market: MarketPriceRoute; fallbackReason?: z.output<typeof fallbackReasonSchema> }

const quoteSchema = z
  .object({
    delta: deltaPriceSchema.optional(),
    market: marketPriceRouteSchema.optional(),
    fallbackReason: fallbackReasonSchema.optional(),
  })
  .transform(({ delta, market, fallbackReason }, context): QuoteResult => {
    // The spender follows from the block, so an answer with both (or neither) cannot be acted on.
    if (delta && market) {
      context.addIssue({ code: 'custom', message: 'expected either a delta or a market block, received both' })
      return z.NEVER
    }
    if (delta) return { mode: 'delta', delta }
    if (market) return { mode: 'market', market, ...(fallbackReason ? { fallbackReason } : {}) }
    context.addIssue({ code: 'custom', message: 'expected a delta or a market block, received neither' })
    return z.NEVER
  })

export type GetQuoteReturnType = QuoteResult

/** GET /v2/quote: a Delta intent or a Market route in one call. */
export function getQuote(client: ApiClient, parameters: GetQuoteParameters): Promise<GetQuoteReturnType> {
  const { signal, timeoutMs, partner, ...query } = parameters
  return client.request(
    {
      method: 'GET',
      endpoint: 'GET /v2/quote',
      path: '/v2/quote',
      query: { ...query, partner: partner ?? client.partner },
      signal,
      timeoutMs,
    },
    quoteSchema,
  )
}
