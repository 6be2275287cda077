import { Observable } from 'rxjs'
import type { Address } from 'viem'
import type { DeltaPrice } from '../../src/api/delta/delta-price-schema.js'
import { type Quote, type QuoteRequest, quoteRequestKey } from '../../src/feed/quote.js'
import type { QuoteEvent } from '../../src/feed/quote-event.js'
import { shareQuoteEvents } from '../../src/feed/quote-feed.js'
import { type BenchResult, summarize } from './summary.js'

export type BenchFeedParameters = {
  runs?: number
  /** Quotes the sources emit per run, over all requests. */
  quotesPerRun?: number
  /** Distinct requests (each its own shared poll). */
  requestCount?: number
  /** Strategies subscribed, each to the quotes of every request. */
  subscriberCount?: number
  /** Quotes a source emits per macrotask, as a burst of answers would arrive. */
  burst?: number
}

/**
 * Quotes per second carried in-process from synthetic sources (prebuilt Quote objects, no HTTP) through the feed's
 * deduplicated, shared, merged streams (shareQuoteEvents → quotesFor) to every subscriber's callback. A run is timed
 * from the first emission to the last delivery; every subscriber must have received every quote.
 */
export async function benchFeed({
  runs = 9,
  quotesPerRun = 1_000_000,
  requestCount = 16,
  subscriberCount = 4,
  burst = 1_000,
}: BenchFeedParameters = {}): Promise<BenchResult> {
  const requests = Array.from({ length: requestCount }, (_, index) => benchRequest(index))
  const events = requests.map((request) => {
    const quote = benchQuote(request)
    return { type: 'quote', key: quote.key, quote } satisfies QuoteEvent
  })
  const perRequest = Math.ceil(quotesPerRun / requestCount)
  const samples: number[] = []
  for (let run = 0; run < runs + 1; run++) {
    const perSecond = await timeRun(requests, events, perRequest, subscriberCount, burst)
    if (run > 0) samples.push(perSecond) // run 0 warms the JIT up
  }
  return summarize('feed quotes carried to subscribers', 'quotes/s', samples, {
    target: '>= 200000 quotes/s',
    requests: String(requestCount),
    subscribers: String(subscriberCount),
    'deliveries per quote': String(subscriberCount),
  })
}

function timeRun(
  requests: readonly QuoteRequest[],
  events: readonly QuoteEvent[],
  perRequest: number,
  subscriberCount: number,
  burst: number,
): Promise<number> {
  let started = 0
  const poll = (request: QuoteRequest): Observable<QuoteEvent> => {
    const event = events[requests.indexOf(request)]
    if (!event) throw new Error('no prebuilt event for the request')
    return syntheticSource(event, perRequest, burst, () => {
      started ||= performance.now()
    })
  }
  const feed = shareQuoteEvents({ requests, poll })
  const expected = perRequest * requests.length
  return new Promise((resolve, reject) => {
    let finished = 0
    for (let index = 0; index < subscriberCount; index++) {
      let received = 0
      let destTotal = 0n
      feed.quotesFor(requests).subscribe({
        next: (quote) => {
          received++
          destTotal += quote.destAmount
        },
        error: reject,
        complete: () => {
          if (received !== expected || destTotal !== BigInt(expected)) {
            reject(new Error(`subscriber ${index} received ${received} quotes, expected ${expected}`))
            return
          }
          if (++finished === subscriberCount) resolve(expected / ((performance.now() - started) / 1000))
        },
      })
    }
  })
}

/** Emits `count` copies of one event in bursts, one burst per macrotask, then completes. */
function syntheticSource(event: QuoteEvent, count: number, burst: number, onFirst: () => void): Observable<QuoteEvent> {
  return new Observable((subscriber) => {
    let sent = 0
    let handle = setImmediate(function emitBurst() {
      onFirst()
      const end = Math.min(count, sent + burst)
      while (sent < end && !subscriber.closed) {
        subscriber.next(event)
        sent++
      }
      if (sent === count) subscriber.complete()
      else handle = setImmediate(emitBurst)
    })
    return () => clearImmediate(handle)
  })
}

function benchRequest(index: number): QuoteRequest {
  const token = (n: number) => `0x${n.toString(16).padStart(40, '0')}` as Address
  return { source: 'delta', chainId: 1, srcToken: token(index + 1), destToken: token(1_000 + index), amount: 10n ** 18n, side: 'SELL' }
}

function benchQuote(request: QuoteRequest): Quote {
  return {
    request,
    key: quoteRequestKey(request),
    srcAmount: request.amount,
    destAmount: 1n,
    // The stream never reads the answer.
    answer: { source: 'delta', price: {} as DeltaPrice },
    requestedAt: 0,
    receivedAt: 0,
  }
}
