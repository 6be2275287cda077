import type { z } from 'zod'
import type { ApiClient, ApiRequest } from '../api/client.js'
import { defaultRetryPolicy } from '../api/client.js'
import { type DeltaPrice, deltaPriceSchema } from '../api/delta/delta-price-schema.js'
import { toApiRequestError } from '../api/error-rules.js'
import { type MarketPriceRoute, marketPriceRouteSchema } from '../api/market/price-route-schema.js'
import { parseApiResponse } from '../api/parse-response.js'
import { BaseError } from '../errors/base.js'
import type { Quote } from '../feed/quote.js'
import { deltaPriceJson } from '../feed/recorded-quote.js'
import type { Clock } from '../time/clock.js'
import { type BookPair, priceFromEitherSource, type ReplayBook, type ScaledQuote } from './replay-book.js'
import { synthesizeAnswer } from './synthesize-answer.js'

export type SimulatedApiParameters = {
  book: ReplayBook
  clock: Clock
  /** A recorded quote older than this is not used to price (the pair counts as unquoted). */
  maxQuoteAgeMs: number
  /** Told when a mode's price had to come from the other mode's quotes (the recording lacks them). */
  onFallback?: ((asked: BookPair, used: 'delta' | 'market') => void) | undefined
}

type Query = Record<string, unknown>

/** A recorded quote that cannot answer what was asked of it. */
export class BacktestQuoteError extends BaseError {
  override name = 'BacktestQuoteError' as const
  constructor(message: string) {
    super(message, { errorClass: 'operational' })
  }
}

const str = (value: unknown): string => (value === undefined || value === null ? '' : String(value))

/**
 * The service's pricing endpoints answered from the replay book: `GET /v2/delta/prices`, `GET /prices` and
 * `GET /v2/quote` price any amount from the latest recorded quotes of the pair (priceFromEitherSource) and answer in the
 * service's wire shapes, which the executor's own schemas parse exactly as live. A pair without a recent quote is
 * refused as the service refuses an unroutable one (`No route`). Anything else (building, submitting) is the
 * simulated venue's business and is refused here.
 */
export function createSimulatedApi({ book, clock, maxQuoteAgeMs, onFallback }: SimulatedApiParameters): ApiClient {
  const refuse = (request: ApiRequest, status: number, message: string): never => {
    throw toApiRequestError({ endpoint: request.endpoint, path: request.path, status, message, extra: {} })
  }

  function quote(request: ApiRequest, source: 'delta' | 'market'): ScaledQuote {
    const query = (request.query ?? {}) as Query
    const chainId = Number(source === 'market' ? query.network : query.chainId)
    const destChainId = query.destChainId === undefined ? chainId : Number(query.destChainId)
    const pair: BookPair = {
      source,
      chainId,
      destChainId,
      srcToken: str(query.srcToken),
      destToken: str(query.destToken),
      side: str(query.side ?? 'SELL') === 'BUY' ? 'BUY' : 'SELL',
    }
    const amount = BigInt(str(query.amount))
    const priced = priceFromEitherSource(book, pair, amount, clock.now(), maxQuoteAgeMs, onFallback)
    if (!priced || priced.destAmount === 0n || priced.srcAmount === 0n) return refuse(request, 400, 'No route')
    return priced
  }

  function answer(request: ApiRequest): unknown {
    switch (request.endpoint) {
      case 'GET /v2/delta/prices':
        return deltaAnswer(quote(request, 'delta'))
      case 'GET /prices':
        return { priceRoute: marketAnswer(quote(request, 'market')) }
      case 'GET /v2/quote': {
        // The unified quote picks the better net amount of the two, as the service's mode ALL does.
        const delta = tryQuote(() => quote(request, 'delta'))
        const market = (request.query as Query).destChainId === undefined ? tryQuote(() => quote(request, 'market')) : undefined
        if (!delta && !market) return refuse(request, 400, 'No route')
        const side = str((request.query as Query).side ?? 'SELL')
        const deltaWins =
          delta !== undefined &&
          (market === undefined || (side === 'BUY' ? delta.srcAmount <= market.srcAmount : delta.destAmount >= market.destAmount))
        return deltaWins ? { delta: deltaAnswer(delta) } : { market: marketAnswer(market as ScaledQuote) }
      }
      default:
        return refuse(request, 422, `${request.endpoint} is not part of a backtest: orders go to the simulated venue`)
    }
  }

  return Object.freeze({
    baseUrl: 'backtest://replay',
    partner: undefined,
    timeoutMs: 0,
    retry: { ...defaultRetryPolicy, retries: 0 },
    rateLimit: undefined,
    clock,
    request: async <S extends z.ZodType>(request: ApiRequest, schema: S): Promise<z.output<S>> =>
      parseApiResponse(schema, answer(request), request.endpoint, 200),
  })
}

/** The answer a strategy reads on a scaled quote: the service's shape for that amount, parsed like a live one. */
export function answerOfScaled(quote: ScaledQuote): Quote['answer'] {
  if (quote.pair.source === 'delta') return { source: 'delta', price: deltaPriceSchema.parse(deltaAnswer(quote)) }
  return { source: 'market', route: marketPriceRouteSchema.parse(marketAnswer(quote)) }
}

function tryQuote(price: () => ScaledQuote): ScaledQuote | undefined {
  try {
    return price()
  } catch {
    return undefined
  }
}

/** The recorded Delta price with its route's amounts scaled to the quote (fees kept as recorded). */
function deltaAnswer(quote: ScaledQuote): unknown {
  const recorded = quote.from.block.answer(quote.from.index)
  if (recorded.source !== 'delta') return deltaPriceJson((synthesized(quote, 'delta') as { price: DeltaPrice }).price)
  const json = deltaPriceJson(recorded.price) as { route: Record<string, unknown>; alternatives: unknown[] }
  return { ...json, route: scaleRoute(json.route, quote), alternatives: [] }
}

/** An answer of `source` made from the scaled amounts and the recorded quote's costs (synthesize-answer.ts). */
function synthesized(quote: ScaledQuote, source: 'delta' | 'market'): Quote['answer'] {
  const { block, index, request } = quote.from
  return synthesizeAnswer({
    request,
    source,
    srcAmount: quote.srcAmount,
    destAmount: quote.destAmount,
    costs: block.costs(index),
    time: block.time(index),
  })
}

function marketAnswer(quote: ScaledQuote): unknown {
  const recorded = quote.from.block.answer(quote.from.index)
  if (recorded.source !== 'market') return (synthesized(quote, 'market') as { route: MarketPriceRoute }).route.raw
  const route = structuredClone(recorded.route.raw) as Record<string, unknown>
  const ratio = { numerator: quote.amount, denominator: quote.from.request.request.amount }
  scaleAmounts(route, ratio, new Set(['srcAmount', 'destAmount']))
  route.srcAmount = quote.srcAmount.toString()
  route.destAmount = quote.destAmount.toString()
  return route
}

type Ratio = { numerator: bigint; denominator: bigint }

/** Every amount of the route's legs scaled by the size ratio; the ends set exactly; fees left as recorded. */
function scaleRoute(route: Record<string, unknown>, quote: ScaledQuote): Record<string, unknown> {
  const scaled = structuredClone(route)
  const ratio = { numerator: quote.amount, denominator: quote.from.request.request.amount }
  for (const leg of ['origin', 'destination'] as const) scaleAmounts(scaled[leg], ratio, new Set(['amount']))
  const origin = scaled.origin as { input: { amount: string } }
  const destination = scaled.destination as { output: { amount: string } }
  origin.input.amount = quote.srcAmount.toString()
  destination.output.amount = quote.destAmount.toString()
  return scaled
}

function scaleAmounts(value: unknown, ratio: Ratio, names: ReadonlySet<string>): void {
  if (Array.isArray(value)) {
    for (const item of value) scaleAmounts(item, ratio, names)
    return
  }
  if (typeof value !== 'object' || value === null) return
  const record = value as Record<string, unknown>
  for (const [key, inner] of Object.entries(record)) {
    if (names.has(key) && typeof inner === 'string' && /^\d+$/.test(inner)) {
      record[key] = ((BigInt(inner) * ratio.numerator) / ratio.denominator).toString()
    } else if (typeof inner === 'object') {
      scaleAmounts(inner, ratio, names)
    }
  }
}
