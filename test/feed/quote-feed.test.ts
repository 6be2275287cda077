import { defer, map, type Observable, take } from 'rxjs'
import { TestScheduler } from 'rxjs/testing'
import { describe, expect, it } from 'vitest'
import { UnknownQuoteRequestError } from '../../src/feed/feed-errors.js'
import type { QuoteRequest } from '../../src/feed/quote.js'
import type { QuoteEvent } from '../../src/feed/quote-event.js'
import { shareQuoteEvents } from '../../src/feed/quote-feed.js'
import { syntheticQuote, syntheticRequest } from './synthetic-quote.js'

const newScheduler = () => new TestScheduler((actual, expected) => expect(actual).toEqual(expected))

describe('shareQuoteEvents', () => {
  const sellEth = syntheticRequest()
  // The same request as another strategy writes it: other address case, another object.
  const sellEthAgain = { ...sellEth, srcToken: sellEth.srcToken.toLowerCase() as QuoteRequest['srcToken'] }
  const buyEth = syntheticRequest({ side: 'BUY' })

  it('polls a request once however many strategies ask for it', () => {
    const started: string[] = []
    newScheduler().run(({ cold, expectObservable }) => {
      const poll = (request: QuoteRequest): Observable<QuoteEvent> =>
        defer(() => {
          started.push(request.side)
          const quote = syntheticQuote(request, request.side === 'SELL' ? 1n : 2n)
          return cold<QuoteEvent>('-a-a-a', { a: { type: 'quote', key: quote.key, quote } })
        })
      const feed = shareQuoteEvents({ requests: [sellEth, buyEth, sellEthAgain], poll })
      expect(feed.requests).toEqual([sellEth, buyEth])
      const destAmounts = map((quote: { destAmount: bigint }) => quote.destAmount)
      expectObservable(feed.quotesFor([sellEth]).pipe(take(2), destAmounts)).toBe('-a-(a|)', { a: 1n })
      expectObservable(feed.quotesFor([sellEthAgain]).pipe(take(2), destAmounts)).toBe('-a-(a|)', { a: 1n })
    })
    expect(started).toEqual(['SELL'])
  })

  it('merges every request into one stream and drops failures from quotesFor', () => {
    newScheduler().run(({ cold, expectObservable }) => {
      const poll = (request: QuoteRequest): Observable<QuoteEvent> => {
        const quote = syntheticQuote(request, 3n)
        const failure: QuoteEvent = { type: 'error', key: quote.key, request, error: new Error('x'), failures: 1, retryInMs: 1, at: 0 }
        return request.side === 'SELL'
          ? cold<QuoteEvent>('-a--', { a: { type: 'quote', key: quote.key, quote } })
          : cold<QuoteEvent>('--e-b', { e: failure, b: { type: 'quote', key: quote.key, quote } })
      }
      const feed = shareQuoteEvents({ requests: [sellEth, buyEth], poll })
      expectObservable(feed.events.pipe(map((event) => `${event.type}:${event.key.includes('BUY') ? 'buy' : 'sell'}`))).toBe('-ab-c', {
        a: 'quote:sell',
        b: 'error:buy',
        c: 'quote:buy',
      })
      expectObservable(feed.quotesFor([buyEth]).pipe(map((quote) => quote.request.side))).toBe('----b', { b: 'BUY' })
    })
  })

  it('stops a poll when its last subscriber leaves and restarts it for the next one', () => {
    newScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const quote = syntheticQuote(sellEth, 1n)
      const source = cold<QuoteEvent>('-a-a-a-a', { a: { type: 'quote', key: quote.key, quote } })
      const feed = shareQuoteEvents({ requests: [sellEth], poll: () => source })
      expectObservable(feed.quotesFor([sellEth]), '^--!').toBe('-a-', { a: quote })
      expectObservable(feed.quotesFor([sellEth]), '-^-!').toBe('-a-', { a: quote })
      expectObservable(feed.quotesFor([sellEth]), '6ms ^-!').toBe('6ms -a', { a: quote })
      expectSubscriptions(source.subscriptions).toBe(['^--!', '6ms ^-!'])
    })
  })

  it('refuses quotes of a request it was not created with', () => {
    const feed = shareQuoteEvents({ requests: [sellEth], poll: () => defer(() => []) })
    expect(() => feed.quotesFor([buyEth])).toThrow(UnknownQuoteRequestError)
  })
})
