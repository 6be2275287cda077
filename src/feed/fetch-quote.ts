import type { ApiClient } from '../api/client.js'
import { deltaPriceSchema } from '../api/delta/delta-price-schema.js'
import { deltaPricesRequest } from '../api/delta/get-delta-prices.js'
import { getQuote } from '../api/get-quote.js'
import { marketPricesAnswerSchema, marketPricesRequest } from '../api/market/get-market-prices.js'
import type { Clock } from '../time/clock.js'
import { InvalidQuoteRequestError } from './feed-errors.js'
import { type Quote, type QuoteRequest, quoteRequestKey } from './quote.js'
import type { TokenDecimals } from './token-decimals.js'

export type FetchQuoteParameters = {
  request: QuoteRequest
  decimalsOf: TokenDecimals
  clock: Clock
  signal?: AbortSignal | undefined
}

/** One price of a request from its source (GET /v2/delta/prices, GET /prices or GET /v2/quote), as a Quote. */
export function fetchQuote(api: ApiClient, parameters: FetchQuoteParameters): Promise<Quote> {
  try {
    return prepareQuoteFetch(api, parameters)()
  } catch (error) {
    return Promise.reject(error)
  }
}

/**
 * What fetchQuote does, prepared once for a request that is priced again and again: the API request (its query
 * string, the tokens' decimals) is built here, and each call of the returned function only sends it and reads the
 * answer. Throws what fetchQuote would reject with when the request cannot be built.
 */
export function prepareQuoteFetch(api: ApiClient, { request, decimalsOf, clock, signal }: FetchQuoteParameters): () => Promise<Quote> {
  const destChainId = request.destChainId ?? request.chainId
  const common = {
    srcToken: request.srcToken,
    destToken: request.destToken,
    amount: request.amount,
    side: request.side,
    srcDecimals: decimalsOf(request.chainId, request.srcToken),
    destDecimals: decimalsOf(destChainId, request.destToken),
    signal,
  }
  const crosschain = destChainId !== request.chainId ? { destChainId } : {}
  const key = quoteRequestKey(request)
  const answerOf = prepareAnswer()
  return async () => {
    const requestedAt = clock.now()
    const answer = await answerOf()
    const amounts =
      answer.source === 'market'
        ? { srcAmount: answer.route.srcAmount, destAmount: answer.route.destAmount }
        : { srcAmount: answer.price.route.origin.input.amount, destAmount: answer.price.route.destination.output.amount }
    return { request, key, ...amounts, answer, requestedAt, receivedAt: clock.now() }
  }

  /** The answer's request, built once, and how to send it. */
  function prepareAnswer(): () => Promise<Quote['answer']> {
    switch (request.source) {
      case 'delta': {
        const priceRequest = deltaPricesRequest(api, { ...common, chainId: request.chainId, ...crosschain })
        return async () => ({ source: 'delta', price: await api.request(priceRequest, deltaPriceSchema) })
      }
      case 'market': {
        if (destChainId !== request.chainId) {
          throw new InvalidQuoteRequestError('a Market quote is same-chain only', { key, chainId: request.chainId, destChainId })
        }
        const priceRequest = marketPricesRequest(api, { ...common, network: request.chainId })
        return async () => ({ source: 'market', route: await api.request(priceRequest, marketPricesAnswerSchema) })
      }
      case 'unified':
        return async () => {
          const result = await getQuote(api, { ...common, chainId: request.chainId, ...crosschain, mode: 'ALL' })
          return result.mode === 'delta' ? { source: 'delta', price: result.delta } : { source: 'market', route: result.market }
        }
    }
  }
}
