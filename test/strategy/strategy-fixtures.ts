import { Writable } from 'node:stream'
import type { MarketPriceRoute } from '../../src/api/market/price-route-schema.js'
import { type Quote, type QuoteRequest, quoteRequestKey } from '../../src/feed/quote.js'
import { createLogger } from '../../src/log/logger.js'

export const usdc = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48'
export const weth = '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2'

/** Config of strategies/example: sell 1000 USDC once a quote gives at least 0.4 WETH. */
export const exampleConfig = { chainId: 1, srcToken: usdc, destToken: weth, amount: '1000000000', minDestAmount: '400000000000000000' }

export const exampleRequest: QuoteRequest = {
  source: 'market',
  chainId: 1,
  srcToken: usdc,
  destToken: weth,
  amount: 1_000_000_000n,
  side: 'SELL',
}

/** A market quote of `request` giving `destAmount`; the route's content does not matter to strategies under test. */
export function sampleQuote(destAmount: bigint, request: QuoteRequest = exampleRequest): Quote {
  const route = { destAmount: destAmount.toString(), hops: [{ exchange: 'sandbox' }] } as unknown as MarketPriceRoute
  return {
    request,
    key: quoteRequestKey(request),
    srcAmount: request.amount,
    destAmount,
    answer: { source: 'market', route },
    requestedAt: 1_700_000_000_000,
    receivedAt: 1_700_000_000_100,
  }
}

/** A logger writing JSON lines to memory. */
export function captureLogger() {
  const lines: string[] = []
  const destination = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk))
      done()
    },
  })
  return {
    logger: createLogger({ level: 'debug', destination }),
    lines: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>),
  }
}
