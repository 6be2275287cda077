import type { Address } from 'viem'
import { z } from 'zod'
import type { ApiClient, RequestOptions } from './client.js'
import { type DeltaPrice, deltaPriceSchema } from './delta/delta-price-schema.js'
import { type MarketPriceRoute, marketPriceRouteSchema } from './market/price-route-schema.js'
import type { Side } from './wire.js'

export type QuoteMode = 'DELTA' | 'MARKET' | 'ALL'

export type GetQuoteParameters = RequestOptions & {
  /** DELTA: a Delta price only; MARKET: a Market route only; ALL (the service's default): the better one. */
  mode?: QuoteMode | undefined
  /** Source chain. */
  chainId: number
  srcToken: Address
  destToken: Address
  /** Raw units: the source amount of a SELL, the destination amount of a BUY. */
  amount: bigint
  srcDecimals: number
  destDecimals: number
  side?: Side | undefined
  /** Omit for same-chain (a crosschain quote is always Delta). */
  destChainId?: number | undefined
  userAddress?: Address | undefined
  beneficiary?: Address | undefined
  /** Default: the client's partner. */
  partner?: string | undefined
  partnerFeeBps?: number | undefined
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
