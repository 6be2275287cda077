import { catchError, EMPTY, exhaustMap, merge, type Observable, of, timer } from 'rxjs'
import type { Address } from 'viem'
import type { ApiClient } from '../../api/client.js'
import { getMarketPrices } from '../../api/market/get-market-prices.js'
import { fromAbortable } from '../../feed/poll-quotes.js'
import type { Clock } from '../../time/clock.js'
import type { ExactPrice, ReferencePrice, ReferenceRequest } from '../maker-strategy.js'
import { averagePrice, priceFromAmounts, priceFromDecimal } from './exact-price.js'

/** What one poll of a reference found: a new price, or why there is none this time. */
export type ReferenceUpdate =
  | { id: string; ok: true; bid: ExactPrice | undefined; ask: ExactPrice | undefined; mid: ExactPrice; at: number }
  | { id: string; ok: false; error: string }

export type PollReferencesParameters = {
  api: ApiClient
  requests: readonly ReferenceRequest[]
  decimalsOf: (chainId: number, token: Address) => Promise<number>
  /** Real ms between two polls of a reference; a poll still running at a tick makes the tick be skipped. */
  intervalMs: number
  clock: Clock
}

/**
 * Polls the market references (fixed ones need no poll: the runtime stamps them at each quote), each on its own
 * timer with exhaustMap so polls never overlap; a failed poll is an update carrying the error.
 */
export function pollReferences({ requests, intervalMs, ...rest }: PollReferencesParameters): Observable<ReferenceUpdate> {
  const polls = requests
    .filter((request) => request.source === 'market')
    .map((request) =>
      timer(0, intervalMs).pipe(
        exhaustMap(() =>
          fromAbortable((signal) => fetchMarketReference(request, { ...rest, signal })).pipe(
            catchError((error: unknown) => of<ReferenceUpdate>({ id: request.id, ok: false, error: errorText(error) })),
          ),
        ),
      ),
    )
  return polls.length === 0 ? EMPTY : merge(...polls)
}

/** A first price of every reference, each awaited once (failures included), for the book to start with. */
export function firstReferences(parameters: Omit<PollReferencesParameters, 'intervalMs'>): Promise<ReferenceUpdate[]> {
  return Promise.all(
    parameters.requests
      .filter((request) => request.source === 'market')
      .map((request) =>
        fetchMarketReference(request, parameters).catch(
          (error: unknown): ReferenceUpdate => ({ id: request.id, ok: false, error: errorText(error) }),
        ),
      ),
  )
}

/** The state of every reference before any poll: fixed ones priced, market ones empty. */
export function initialReferences(requests: readonly ReferenceRequest[]): Map<string, ReferencePrice> {
  return new Map(
    requests.map((request) => {
      const mid = request.source === 'fixed' ? priceFromDecimal(request.price) : undefined
      const price: ReferencePrice = {
        id: request.id,
        chainId: request.chainId,
        base: request.base,
        quote: request.quote,
        bid: undefined,
        ask: undefined,
        mid,
        at: undefined,
        lastError: undefined,
      }
      return [request.id, price]
    }),
  )
}

/** Applies an update: a price replaces the previous one, an error is noted and the previous price ages. */
export function applyReferenceUpdate(references: Map<string, ReferencePrice>, update: ReferenceUpdate): void {
  const previous = references.get(update.id)
  if (!previous) return
  references.set(
    update.id,
    update.ok
      ? { ...previous, bid: update.bid, ask: update.ask, mid: update.mid, at: update.at, lastError: undefined }
      : { ...previous, lastError: update.error },
  )
}

type FetchContext = Omit<PollReferencesParameters, 'requests' | 'intervalMs'> & { signal?: AbortSignal | undefined }

/** SELL and/or BUY `size` base on the Market endpoint without RFQ liquidity: the bid, the ask, their mid. */
async function fetchMarketReference(request: ReferenceRequest, { api, decimalsOf, clock, signal }: FetchContext): Promise<ReferenceUpdate> {
  if (request.source !== 'market') throw new Error('fetchMarketReference: a market reference was expected')
  const { chainId, base, quote, size, sides = 'both' } = request
  const [baseDecimals, quoteDecimals] = await Promise.all([decimalsOf(chainId, base), decimalsOf(chainId, quote)])
  const common = { network: chainId, amount: size, excludeRFQ: true, signal }
  const [sell, buy] = await Promise.all([
    sides === 'buy'
      ? undefined
      : getMarketPrices(api, {
          ...common,
          srcToken: base,
          destToken: quote,
          srcDecimals: baseDecimals,
          destDecimals: quoteDecimals,
          side: 'SELL',
        }),
    sides === 'sell'
      ? undefined
      : getMarketPrices(api, {
          ...common,
          srcToken: quote,
          destToken: base,
          srcDecimals: quoteDecimals,
          destDecimals: baseDecimals,
          side: 'BUY',
        }),
  ])
  const decimals = { baseDecimals, quoteDecimals }
  const bid = sell && priceFromAmounts({ baseAmount: sell.srcAmount, quoteAmount: sell.destAmount, ...decimals })
  const ask = buy && priceFromAmounts({ baseAmount: buy.destAmount, quoteAmount: buy.srcAmount, ...decimals })
  const mid = bid && ask ? averagePrice(bid, ask) : (bid ?? ask)
  if (!mid) throw new Error('no side of the reference was quoted')
  return { id: request.id, ok: true, bid, ask, mid, at: clock.now() }
}

function errorText(error: unknown): string {
  const text = error instanceof Error ? ((error as { shortMessage?: string }).shortMessage ?? error.message) : String(error)
  return text.split('\n')[0] ?? text
}
