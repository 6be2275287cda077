import type { Address } from 'viem'
import type { DeltaPrice } from '../api/delta/delta-price-schema.js'
import type { MarketPriceRoute } from '../api/market/price-route-schema.js'
import { internString } from '../domain/intern-string.js'

/** Where a quote comes from: GET /v2/delta/prices, GET /prices, or GET /v2/quote (mode ALL). */
export type QuoteSource = 'delta' | 'market' | 'unified'

/** One pair, size and side a strategy wants priced, from one source. */
export type QuoteRequest = {
  source: QuoteSource
  chainId: number
  /** Crosschain (Delta only); defaults to chainId. */
  destChainId?: number | undefined
  srcToken: Address
  destToken: Address
  /** Raw units of the fixed side. */
  amount: bigint
  side: 'SELL' | 'BUY'
}

/** A priced request: the amounts in raw units and the service's answer, which the executor can act on. */
export type Quote = {
  request: QuoteRequest
  /** quoteRequestKey(request): the same for every quote of the same request. */
  key: string
  /** Source amount (fixed for SELL, quoted for BUY) and destination amount (quoted for SELL, fixed for BUY). */
  srcAmount: bigint
  destAmount: bigint
  /** The answer, as the API client parsed it. */
  answer: { source: 'delta'; price: DeltaPrice } | { source: 'market'; route: MarketPriceRoute }
  /** Clock ms when the request was sent and when the answer arrived. */
  requestedAt: number
  receivedAt: number
}

/**
 * A stable key of a request (tokens lowercase, amount in decimal): equal for every quote of the same request, and the
 * same string object (interned), so that the maps and sets keyed by it (a quote matched to its strategies on every
 * quote of a replay) find it without comparing its characters.
 *
 * @example
 * const guard = quoteRequestKey(config.guardRequest)
 * onQuote: (quote) => { if (quote.key === guard) ... }
 */
export function quoteRequestKey(request: QuoteRequest): string {
  const destChainId = request.destChainId ?? request.chainId
  return internString(
    [
      request.source,
      request.chainId,
      destChainId,
      request.srcToken.toLowerCase(),
      request.destToken.toLowerCase(),
      request.side,
      request.amount.toString(),
    ].join(':'),
  )
}

/**
 * How old a quote is at `now` (clock ms): its staleness.
 *
 * @example
 * onQuote: (quote, { now }) => {
 *   if (quoteAgeMs(quote, now()) > 30_000) return // too old to act on
 * }
 */
export function quoteAgeMs(quote: Pick<Quote, 'receivedAt'>, now: number): number {
  return Math.max(0, now - quote.receivedAt)
}
