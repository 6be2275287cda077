import { z } from 'zod'
import type { ApiClient } from './client.js'
import { isGasCostExceedsTradeAmount } from './delta/delta-price-refusal.js'
import { type DeltaPrice, deltaPriceSchema } from './delta/delta-price-schema.js'
import type { GetDeltaPricesParameters } from './delta/get-delta-prices.js'
import { toApiRequestError } from './error-rules.js'
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

const fallbackReasonSchema = z
  .object({ errorType: z.string().optional(), details: z.string().optional() })
  .transform(({ errorType, details }) => ({
    /** The service's code, e.g. `GasCostExceedsTradeAmount` or `UnsupportedChain`. */
    errorType,
    details,
    /** Delta's settlement gas is worth more than the trade: Delta cannot take this amount (a larger one may). */
    gasCostExceedsTradeAmount: isGasCostExceedsTradeAmount(errorType) || isGasCostExceedsTradeAmount(details),
  }))

/** Why the service answered Market in mode ALL: Delta could not price the trade. */
export type FallbackReason = z.output<typeof fallbackReasonSchema>

/**
 * What to do next depends on the block (section 5.5): `delta` → approve the Delta contract (`delta.spender`), build,
 * sign, submit; `market` → approve the Market router, build the transaction, broadcast. `fallbackReason` says why
 * Delta could not price when the service fell back to Market: Delta is then not available for this trade.
 */
export type QuoteResult =
  | { mode: 'delta'; delta: DeltaPrice }
  | { mode: 'market'; market: MarketPriceRoute; fallbackReason?: FallbackReason }

/** A refusal written into a 200 answer (`{ errorType, details }` without a block), as the service does in mode DELTA. */
type QuoteRefusal = { refusal: { errorType: string; details: string | undefined } }

const quoteSchema = z
  .object({
    delta: deltaPriceSchema.optional(),
    market: marketPriceRouteSchema.optional(),
    fallbackReason: fallbackReasonSchema.optional(),
    errorType: z.string().optional(),
    details: z.string().optional(),
  })
  .transform(({ delta, market, fallbackReason, errorType, details }, context): QuoteResult | QuoteRefusal => {
    // The spender follows from the block, so an answer with both (or neither) cannot be acted on.
    if (delta && market) {
      context.addIssue({ code: 'custom', message: 'expected either a delta or a market block, received both' })
      return z.NEVER
    }
    if (delta) return { mode: 'delta', delta }
    if (market) return { mode: 'market', market, ...(fallbackReason ? { fallbackReason } : {}) }
    if (errorType !== undefined) return { refusal: { errorType, details } }
    context.addIssue({ code: 'custom', message: 'expected a delta or a market block, received neither' })
    return z.NEVER
  })

export type GetQuoteReturnType = QuoteResult

/**
 * GET /v2/quote: a Delta intent or a Market route in one call. A refusal, in an error status or in a 200 answer
 * without a block, throws the typed error of its code (GasCostExceedsTradeAmountError for an amount whose Delta
 * settlement gas is worth more than the trade).
 */
export async function getQuote(client: ApiClient, parameters: GetQuoteParameters): Promise<GetQuoteReturnType> {
  const { signal, timeoutMs, partner, ...query } = parameters
  const endpoint = 'GET /v2/quote'
  const path = '/v2/quote'
  const answer = await client.request(
    { method: 'GET', endpoint, path, query: { ...query, partner: partner ?? client.partner }, signal, timeoutMs },
    quoteSchema,
  )
  if ('refusal' in answer) {
    const { errorType, details } = answer.refusal
    const extra = details === undefined ? {} : { details }
    throw toApiRequestError({ endpoint, path, status: 200, message: errorType, extra })
  }
  return answer
}
