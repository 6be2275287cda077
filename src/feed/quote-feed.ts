import { filter, map, merge, type Observable, share } from 'rxjs'
import { UnknownQuoteRequestError } from './feed-errors.js'
import { type PollQuotesParameters, pollQuotes } from './poll-quotes.js'
import type { Quote, QuoteRequest } from './quote.js'
import { quoteRequestKey } from './quote.js'
import type { QuoteEvent } from './quote-event.js'

/** The quotes of many requests, each request polled once however many strategies ask for it. */
export type QuoteFeed = {
  /** The distinct requests polled, one per quoteRequestKey, in first-asked order. */
  readonly requests: readonly QuoteRequest[]
  /** Every event of every request, merged. Polling runs while anything is subscribed. */
  readonly events: Observable<QuoteEvent>
  /** The events of some requests (which must be among the feed's); only their polls are started. */
  eventsFor: (requests: readonly QuoteRequest[]) => Observable<QuoteEvent>
  /** The quotes of some requests, without the failures. */
  quotesFor: (requests: readonly QuoteRequest[]) => Observable<Quote>
}

export type ShareQuoteEventsParameters = {
  requests: readonly QuoteRequest[]
  /** The events of one request; subscribed at most once at a time per distinct request. */
  poll: (request: QuoteRequest) => Observable<QuoteEvent>
}

/** A QuoteFeed over any source of events per request: deduplicates by quoteRequestKey and shares each poll. */
export function shareQuoteEvents({ requests, poll }: ShareQuoteEventsParameters): QuoteFeed {
  const polls = new Map<string, { request: QuoteRequest; events: Observable<QuoteEvent> }>()
  for (const request of requests) {
    const key = quoteRequestKey(request)
    // share() resets when the last subscriber leaves, so the poll stops and restarts with the next one.
    if (!polls.has(key)) polls.set(key, { request, events: poll(request).pipe(share()) })
  }
  const eventsOfKeys = (keys: Iterable<string>): Observable<QuoteEvent> => {
    const selected = [...new Set(keys)].map((key) => {
      const found = polls.get(key)
      if (!found) throw new UnknownQuoteRequestError(key, [...polls.keys()])
      return found.events
    })
    return selected.length === 1 && selected[0] ? selected[0] : merge(...selected)
  }
  const events = eventsOfKeys(polls.keys()).pipe(share())
  const eventsFor = (wanted: readonly QuoteRequest[]) => eventsOfKeys(wanted.map(quoteRequestKey))
  return {
    requests: [...polls.values()].map(({ request }) => request),
    events,
    eventsFor,
    quotesFor: (wanted) =>
      eventsFor(wanted).pipe(
        filter((event) => event.type === 'quote'),
        map((event) => event.quote),
      ),
  }
}

export type CreateQuoteFeedParameters = Omit<PollQuotesParameters, 'request'> & { requests: readonly QuoteRequest[] }

/**
 * The HTTP quote feed of a bot: one poll per distinct request (pollQuotes), shared among the strategies.
 *
 * @example
 * const feed = createQuoteFeed({ api, requests: strategies.flatMap((s) => s.quoteRequests), decimalsOf, intervalMs: 2_000, clock })
 * feed.quotesFor(strategy.quoteRequests).subscribe((quote) => strategy.onQuote({ quote }))
 */
export function createQuoteFeed({ requests, ...parameters }: CreateQuoteFeedParameters): QuoteFeed {
  // First polls spread evenly over one interval, so many requests do not all hit the venue in the same millisecond.
  const keys = [...new Set(requests.map(quoteRequestKey))]
  const offsetOf = (request: QuoteRequest) => Math.floor((keys.indexOf(quoteRequestKey(request)) * parameters.intervalMs) / keys.length)
  return shareQuoteEvents({ requests, poll: (request) => pollQuotes({ ...parameters, request, startDelayMs: offsetOf(request) }) })
}
