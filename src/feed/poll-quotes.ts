import {
  asyncScheduler,
  catchError,
  concat,
  defer,
  EMPTY,
  exhaustMap,
  finalize,
  ignoreElements,
  map,
  Observable,
  of,
  type SchedulerLike,
  timer,
} from 'rxjs'
import type { ApiClient } from '../api/client.js'
import type { Clock } from '../time/clock.js'
import { type BackoffPolicy, backoffDelayMs, backoffPolicyOf } from './backoff.js'
import { prepareQuoteFetch } from './fetch-quote.js'
import type { Quote, QuoteRequest } from './quote.js'
import { quoteRequestKey } from './quote.js'
import type { QuoteEvent } from './quote-event.js'
import type { TokenDecimals } from './token-decimals.js'

export type PollQuoteSourceParameters = {
  request: QuoteRequest
  /** One price of the request; subscribed once per poll, unsubscribed (aborted) when the poll is torn down. */
  fetch: (request: QuoteRequest) => Observable<Quote>
  /** Time between poll starts, ms; a poll still running at a tick makes the tick be skipped. */
  intervalMs: number
  /** Delay of the first poll, ms (default 0): a feed spreads its requests' first polls over one interval. */
  startDelayMs?: number | undefined
  /** Stamps failures. */
  clock: Clock
  /** Schedules ticks and backoff (default asyncScheduler; a TestScheduler in tests). */
  scheduler?: SchedulerLike | undefined
  backoff?: Partial<BackoffPolicy> | undefined
  /** Jitter of the backoff, [0, 1) (default Math.random). */
  random?: (() => number) | undefined
}

/**
 * Polls one request forever: a poll at every tick of `intervalMs` (the first after `startDelayMs`), never two at a time. A failed
 * poll becomes an error event and holds the next poll back by an exponential backoff; a success resets it.
 */
export function pollQuoteSource(parameters: PollQuoteSourceParameters): Observable<QuoteEvent> {
  const { request, fetch, intervalMs, clock, startDelayMs = 0, scheduler = asyncScheduler, random = Math.random } = parameters
  if (!(intervalMs > 0) || !Number.isFinite(intervalMs))
    throw new RangeError(`intervalMs must be a positive number, received ${intervalMs}`)
  const policy = backoffPolicyOf(parameters.backoff)
  const key = quoteRequestKey(request)
  return defer(() => {
    let failures = 0
    const poll = (): Observable<QuoteEvent> =>
      defer(() => fetch(request)).pipe(
        map((quote): QuoteEvent => {
          failures = 0
          return { type: 'quote', key, quote }
        }),
        catchError((error: unknown) => {
          failures++
          const retryInMs = backoffDelayMs(failures, policy, random)
          const event: QuoteEvent = { type: 'error', key, request, error, failures, retryInMs, at: clock.now() }
          // The backoff wait is part of the poll, so exhaustMap drops the ticks that fall into it.
          return concat(of(event), retryInMs > 0 ? timer(retryInMs, scheduler).pipe(ignoreElements()) : EMPTY)
        }),
      )
    return timer(startDelayMs, intervalMs, scheduler).pipe(exhaustMap(poll))
  })
}

export type PollQuotesParameters = Omit<PollQuoteSourceParameters, 'fetch'> & {
  api: ApiClient
  decimalsOf: TokenDecimals
}

/**
 * Polls one request over HTTP with its source's endpoint; see pollQuoteSource.
 *
 * @example
 * pollQuotes({ api, request, decimalsOf: decimalsFromTokenList(tokens), intervalMs: 2_000, clock: systemClock })
 *   .subscribe((event) => event.type === 'quote' && log.info({ destAmount: event.quote.destAmount }))
 */
export function pollQuotes({ api, decimalsOf, ...parameters }: PollQuotesParameters): Observable<QuoteEvent> {
  const { clock } = parameters
  return defer(() => {
    // One signal for all the polls of a subscription, aborted (with the poll in flight) when it is torn down: a signal
    // per poll would cost an AbortSignal per request, whose weak native handle keeps each poll's objects alive longer.
    const controller = new AbortController()
    const { signal } = controller
    // Built at the first poll that can build it (a token without decimals fails each poll, as an error event).
    let fetchPrepared: (() => Promise<Quote>) | undefined
    const fetch = (request: QuoteRequest) =>
      defer(() => {
        fetchPrepared ??= prepareQuoteFetch(api, { request, decimalsOf, clock, signal })
        return fetchPrepared()
      })
    return pollQuoteSource({ ...parameters, fetch }).pipe(finalize(() => controller.abort()))
  })
}

/** An observable of one promise whose work is aborted when unsubscribed before it settles. */
export function fromAbortable<T>(run: (signal: AbortSignal) => Promise<T>): Observable<T> {
  return new Observable<T>((subscriber) => {
    const controller = new AbortController()
    let settled = false
    run(controller.signal).then(
      (value) => {
        settled = true
        subscriber.next(value)
        subscriber.complete()
      },
      (error: unknown) => {
        settled = true
        subscriber.error(error)
      },
    )
    // Aborting settled work would only build an AbortError and fire listeners for nothing (once per poll).
    return () => {
      if (!settled) controller.abort()
    }
  })
}
