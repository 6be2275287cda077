import { defer, finalize, map, type Observable, take } from 'rxjs'
import { TestScheduler } from 'rxjs/testing'
import { describe, expect, it } from 'vitest'
import { pollQuoteSource } from '../../src/feed/poll-quotes.js'
import type { Quote } from '../../src/feed/quote.js'
import type { QuoteEvent } from '../../src/feed/quote-event.js'
import { ManualClock } from '../../src/time/clock.js'
import { syntheticQuote, syntheticRequest } from './synthetic-quote.js'

// Polling logic in virtual time: one frame is one ms, the fetch is a cold observable whose length is the venue's latency.

const newScheduler = () => new TestScheduler((actual, expected) => expect(actual).toEqual(expected))

/** An event as a short marble value: q<destAmount> or e<failures>/<retryInMs>. */
const compact = (event: QuoteEvent) => (event.type === 'quote' ? `q${event.quote.destAmount}` : `e${event.failures}/${event.retryInMs}`)

describe('pollQuoteSource', () => {
  const request = syntheticRequest()

  it('polls at once and then at every interval when the venue answers quickly', () => {
    newScheduler().run(({ cold, expectObservable }) => {
      const events = pollQuoteSource({
        request,
        fetch: () => cold('--a|', { a: syntheticQuote(request, 7n) }),
        intervalMs: 10,
        clock: new ManualClock(),
      })
      expectObservable(events.pipe(take(3), map(compact))).toBe('--a 9ms b 9ms (c|)', { a: 'q7', b: 'q7', c: 'q7' })
    })
  })

  it('never runs two polls at once when the venue is slower than the interval', () => {
    let running = 0
    let mostRunning = 0
    newScheduler().run(({ cold, expectObservable }) => {
      const slowFetch = (): Observable<Quote> =>
        defer(() => {
          running++
          mostRunning = Math.max(mostRunning, running)
          return cold('-------------a|', { a: syntheticQuote(request, 1n) })
        }).pipe(finalize(() => running--))
      const events = pollQuoteSource({ request, fetch: slowFetch, intervalMs: 5, clock: new ManualClock() })
      // Poll 1 runs 0..14; the ticks at 5 and 10 are dropped; poll 2 starts at the tick at 15, poll 3 at 30.
      expectObservable(events.pipe(take(3), map(compact))).toBe('13ms a 14ms b 14ms (c|)', { a: 'q1', b: 'q1', c: 'q1' })
    })
    // Checked after run(), which flushes the virtual time.
    expect(mostRunning).toBe(1)
  })

  it('backs off exponentially after failures, keeps polling, and resets the backoff after a success', () => {
    newScheduler().run(({ cold, expectObservable }) => {
      const outcomes = ['fail', 'fail', 'ok', 'fail', 'ok']
      let poll = 0
      const fetch = () =>
        outcomes[poll++] === 'fail' ? cold<Quote>('-#', undefined, new Error('503')) : cold('-a|', { a: syntheticQuote(request, 5n) })
      const clock = new ManualClock(1_000)
      const events = pollQuoteSource({
        request,
        fetch,
        intervalMs: 10,
        clock,
        backoff: { initialDelayMs: 20, multiplier: 2, maxDelayMs: 50, jitter: 0 },
      })
      // Failure at 1 waits 20 ms (until 21: next tick 30); failure at 31 waits 40 ms (until 71: next tick 80).
      expectObservable(events.pipe(take(5), map(compact))).toBe('-a 29ms b 49ms c 9ms d 29ms (e|)', {
        a: 'e1/20',
        b: 'e2/40',
        c: 'q5',
        d: 'e1/20',
        e: 'q5',
      })
    })
  })

  it('caps the backoff and jitters it with the injected random', () => {
    newScheduler().run(({ cold, expectObservable }) => {
      const events = pollQuoteSource({
        request,
        fetch: () => cold<Quote>('-#', undefined, new Error('down')),
        intervalMs: 10,
        clock: new ManualClock(),
        backoff: { initialDelayMs: 20, multiplier: 3, maxDelayMs: 100, jitter: 0.5 },
        random: () => 0.5,
      })
      // Nominal 20, 60, 100 (capped from 180), 100; each × 0.75.
      expectObservable(events.pipe(take(4), map(compact))).toBe('-a 19ms b 49ms c 79ms (d|)', {
        a: 'e1/15',
        b: 'e2/45',
        c: 'e3/75',
        d: 'e4/75',
      })
    })
  })

  it('stamps a failure with the clock and carries the error and request', () => {
    newScheduler().run(({ cold, expectObservable }) => {
      const clock = new ManualClock(5_000)
      const failure = new Error('boom')
      const events = pollQuoteSource({ request, fetch: () => cold<Quote>('#', undefined, failure), intervalMs: 10, clock, random: () => 0 })
      expectObservable(events.pipe(take(1))).toBe('(a|)', {
        a: { type: 'error', key: syntheticQuote(request, 0n).key, request, error: failure, failures: 1, retryInMs: 1_000, at: 5_000 },
      })
    })
  })

  it('stops polling when unsubscribed', () => {
    newScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const answer = cold('--a|', { a: syntheticQuote(request, 1n) })
      const events = pollQuoteSource({ request, fetch: () => answer, intervalMs: 10, clock: new ManualClock() })
      expectObservable(events.pipe(map(compact)), '^ 14ms !').toBe('--a 9ms b', { a: 'q1', b: 'q1' })
      expectSubscriptions(answer.subscriptions).toBe(['^--!', '10ms ^--!'])
    })
  })
})
