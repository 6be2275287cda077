import type { ApiClient } from '../api/client.js'
import { getDeltaPrices } from '../api/delta/get-delta-prices.js'
import { getQuote } from '../api/get-quote.js'
import { getMarketPrices } from '../api/market/get-market-prices.js'
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
export async function fetchQuote(api: ApiClient, { request, decimalsOf, clock, signal }: FetchQuoteParameters): Promise<Quote> {
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
  const requestedAt = clock.now()
  const answer = await fetchAnswer()
  const amounts =
    answer.source === 'market'
      ? { srcAmount: answer.route.srcAmount, destAmount: answer.route.destAmount }
      : { srcAmount: answer.price.route.origin.input.amount, destAmount: answer.price.route.destination.output.amount }
  return { request, key, ...amounts, answer, requestedAt, receivedAt: clock.now() }

  async function fetchAnswer(): Promise<Quote['answer']> {
    switch (request.source) {
      case 'delta':
        return { source: 'delta', price: await getDeltaPrices(api, { ...common, chainId: request.chainId, ...crosschain }) }
      case 'market':
        if (destChainId !== request.chainId) {
          throw new InvalidQuoteRequestError('a Market quote is same-chain only', { key, chainId: request.chainId, destChainId })
        }
        return { source: 'market', route: await getMarketPrices(api, { ...common, network: request.chainId }) }
      case 'unified': {
        const result = await getQuote(api, { ...common, chainId: request.chainId, ...crosschain, mode: 'ALL' })
        return result.mode === 'delta' ? { source: 'delta', price: result.delta } : { source: 'market', route: result.market }
      }
    }
  }
}
