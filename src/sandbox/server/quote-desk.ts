import { z } from 'zod'
import { ApiError, defineApiErrors } from './api-error.js'
import type { SandboxDesk } from './desk.js'
import { parseRequestPart } from './validate.js'

type DeltaPrice = { side: 'SELL' | 'BUY'; route: { origin: { input: { amount: string } }; destination: { output: { amount: string } } } }
type MarketRoute = { srcAmount: string; destAmount: string; srcUSD: string; destUSD: string; gasCostUSD: string }

export type QuoteSources = {
  /** What GET /v2/delta/prices answers for this query. */
  priceDelta: (query: Record<string, unknown>) => Promise<DeltaPrice>
  /** What GET /prices answers as `priceRoute` for this query. */
  priceMarket: (query: Record<string, unknown>) => Promise<MarketRoute>
}

const quoteErrors = defineApiErrors({
  marketCrosschain: {
    endpoint: 'GET /v2/quote',
    status: 400,
    message: 'Market routes are same-chain only',
    cause: 'mode=MARKET with a destChainId different from chainId.',
    fix: 'Use mode=DELTA or ALL for a crosschain quote.',
  },
})

const quoteQuerySchema = z.looseObject({
  // The document writes the modes in upper case; the official SDK sends them in lower case (`delta`, `market`, `all`).
  mode: z
    .string()
    .transform((mode) => mode.toUpperCase())
    .pipe(
      z.enum(['ALL', 'DELTA', 'MARKET'], {
        error: (issue) => `expected ALL, DELTA or MARKET (any case), received ${JSON.stringify(issue.input)}`,
      }),
    )
    .default('ALL'),
  chainId: z.coerce.number().int().positive(),
  destChainId: z.coerce.number().int().positive().optional(),
  side: z.enum(['SELL', 'BUY']).default('SELL'),
})

/**
 * `GET /v2/quote`: a Delta intent or a Market route in one call (`mode` in any case: the SDK sends `all`). With
 * `mode=ALL` the sandbox prices both and answers with the better one net of gas (`delta` or `market` at the top
 * level); when Delta cannot price (an unsupported chain, an amount below its settlement gas), it falls back to Market
 * and says why in `fallbackReason` (`{ errorType: "GasCostExceedsTradeAmount", details }` for the latter).
 */
export function createQuoteDesk(sources: QuoteSources): SandboxDesk {
  return {
    name: 'quote',
    register: (app) => {
      app.get('/v2/quote', async (request) => {
        const raw = (request.query ?? {}) as Record<string, unknown>
        const query = parseRequestPart(quoteQuerySchema, raw, 'query')
        const crosschain = query.destChainId !== undefined && query.destChainId !== query.chainId
        const { mode: _mode, ...forward } = raw
        const marketQuery = () => {
          const { chainId, beneficiary, destChainId: _destChainId, ...rest } = forward
          return { ...rest, network: chainId, version: '6.2', ...(beneficiary === undefined ? {} : { receiver: beneficiary }) }
        }
        if (query.mode === 'DELTA' || (query.mode === 'ALL' && crosschain)) return { delta: await sources.priceDelta(forward) }
        if (query.mode === 'MARKET') {
          if (crosschain) throw new ApiError(quoteErrors.marketCrosschain)
          return { market: await sources.priceMarket(marketQuery()) }
        }
        const [delta, market] = await Promise.allSettled([sources.priceDelta(forward), sources.priceMarket(marketQuery())])
        if (delta.status === 'rejected') {
          if (market.status === 'rejected') throw delta.reason
          return { market: market.value, fallbackReason: fallbackReasonOf(delta.reason as Error) }
        }
        if (market.status === 'rejected') return { delta: delta.value }
        return deltaIsBetter(delta.value, market.value, query.side) ? { delta: delta.value } : { market: market.value }
      })
    },
  }
}

/** Delta's amounts already include the agents' gas; Market's must carry the user's gas, valued in the traded token. */
function deltaIsBetter(delta: DeltaPrice, market: MarketRoute, side: 'SELL' | 'BUY'): boolean {
  const gasShare = (usd: string) => Number(market.gasCostUSD) / Math.max(Number(usd), Number.MIN_VALUE)
  if (side === 'SELL') {
    const marketNet = Number(market.destAmount) * (1 - gasShare(market.destUSD))
    return Number(delta.route.destination.output.amount) >= marketNet
  }
  const marketCost = Number(market.srcAmount) * (1 + gasShare(market.srcUSD))
  return Number(delta.route.origin.input.amount) <= marketCost
}

/**
 * Why Delta could not price: the error's own `{ errorType, details }` when it carries the service's pair (as
 * `GasCostExceedsTradeAmount` does), else a code derived from the documented message and the whole message.
 */
function fallbackReasonOf(error: Error): { errorType: string; details: string } {
  if (error instanceof ApiError && typeof error.extra.errorType === 'string') {
    return { errorType: error.extra.errorType, details: typeof error.extra.details === 'string' ? error.extra.details : error.message }
  }
  return { errorType: errorTypeOf(error), details: error.message }
}

/** An error code in the OpenAPI's style (`UnsupportedChain`) from the documented message that opens the error text. */
function errorTypeOf(error: Error): string {
  if (!(error instanceof ApiError)) return 'InternalError'
  const documented = error.message.split(/[:(]/)[0] ?? ''
  const words = documented.match(/[A-Za-z0-9]+/g) ?? []
  return words.map((word) => (word === word.toUpperCase() ? word : word[0]?.toUpperCase() + word.slice(1))).join('') || 'Error'
}
