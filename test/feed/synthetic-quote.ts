import type { Address } from 'viem'
import type { DeltaPrice } from '../../src/api/delta/delta-price-schema.js'
import { type Quote, type QuoteRequest, quoteRequestKey } from '../../src/feed/quote.js'

// Quotes that never came from a service, for tests of the stream logic in virtual time.

const weth: Address = '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2'
const usdc: Address = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48'

export function syntheticRequest(overrides: Partial<QuoteRequest> = {}): QuoteRequest {
  return { source: 'delta', chainId: 1, srcToken: weth, destToken: usdc, amount: 10n ** 18n, side: 'SELL', ...overrides }
}

export function syntheticQuote(request: QuoteRequest, destAmount: bigint, at = 0): Quote {
  return {
    request,
    key: quoteRequestKey(request),
    srcAmount: request.amount,
    destAmount,
    // The stream logic never reads the answer.
    answer: { source: 'delta', price: {} as DeltaPrice },
    requestedAt: at,
    receivedAt: at,
  }
}
