import { setTimeout as sleep } from 'node:timers/promises'
import { filter, firstValueFrom, map, take, takeWhile, toArray } from 'rxjs'
import { parseUnits } from 'viem'
import { afterEach, describe, expect, it } from 'vitest'
import { type ApiTransportEvent, createApiClient } from '../../src/api/client.js'
import { ApiRequestError } from '../../src/api/errors.js'
import { pollQuotes } from '../../src/feed/poll-quotes.js'
import type { Quote, QuoteRequest, QuoteSource } from '../../src/feed/quote.js'
import type { QuoteEvent } from '../../src/feed/quote-event.js'
import { createQuoteFeed } from '../../src/feed/quote-feed.js'
import { decimalsFromTokenList } from '../../src/feed/token-decimals.js'
import type { FaultRuleInput } from '../../src/sandbox/server/faults.js'
import type { Clock } from '../../src/time/clock.js'
import { request as sandboxRequest, sandboxToken, useSandbox } from '../helpers/sandbox.js'

/** A fetch that records when each request starts and how many run at once. */
function countingFetch() {
  const started: { path: string; at: number }[] = []
  let running = 0
  let mostRunning = 0
  const fetch: typeof globalThis.fetch = async (input, init) => {
    started.push({ path: new URL(String(input)).pathname, at: performance.now() })
    running++
    mostRunning = Math.max(mostRunning, running)
    try {
      return await globalThis.fetch(input, init)
    } finally {
      running--
    }
  }
  return { fetch, started, mostRunning: () => mostRunning }
}

/** A clock that ticks one ms per reading, so a quote's requestedAt and receivedAt differ. */
function steppingClock(start = 1_000): Clock {
  let now = start
  return { now: () => now++ }
}

const isQuote = (event: QuoteEvent) => event.type === 'quote'

describe('pollQuotes against the sandbox', () => {
  const sandbox = useSandbox({ chainIds: [1] })
  const decimalsOf = () => decimalsFromTokenList(sandbox().tokens)
  // The feed's own backoff is under test, so the client does not retry.
  const client = (fetch: typeof globalThis.fetch = globalThis.fetch) => createApiClient({ baseUrl: sandbox().url, retry: false, fetch })
  const sellUsdc = (source: QuoteSource, side: 'SELL' | 'BUY' = 'SELL'): QuoteRequest => ({
    source,
    chainId: 1,
    srcToken: sandboxToken(sandbox(), 1, 'USDC').address,
    destToken: sandboxToken(sandbox(), 1, 'WETH').address,
    amount: side === 'SELL' ? parseUnits('2500', 6) : parseUnits('1', 18),
    side,
  })
  const addFault = async (fault: FaultRuleInput) =>
    expect((await sandboxRequest(sandbox().url, 'POST', '/_sandbox/faults', fault)).status).toBe(200)

  afterEach(async () => {
    await sandboxRequest(sandbox().url, 'DELETE', '/_sandbox/faults')
  })

  const firstQuote = (request: QuoteRequest, clock: Clock = steppingClock()) =>
    firstValueFrom(
      pollQuotes({ api: client(), request, decimalsOf: decimalsOf(), intervalMs: 1_000, clock }).pipe(
        map((event) => {
          if (event.type === 'error') throw event.error
          return event.quote
        }),
      ),
    )

  /** The amounts of the answer exactly as the service wrote them. */
  const answerAmounts = (quote: Quote) => {
    if (quote.answer.source === 'market') {
      const raw = quote.answer.route.raw as { srcAmount: string; destAmount: string }
      return [raw.srcAmount, raw.destAmount]
    }
    const raw = quote.answer.price.route.raw as { origin: { input: { amount: string } }; destination: { output: { amount: string } } }
    return [raw.origin.input.amount, raw.destination.output.amount]
  }

  it.each([
    ['delta', 'SELL'],
    ['market', 'SELL'],
    ['market', 'BUY'],
    ['unified', 'SELL'],
  ] as const)('turns a %s %s answer into a quote with the answer’s raw amounts and clock stamps', async (source, side) => {
    const request = sellUsdc(source, side)
    const quote = await firstQuote(request, steppingClock(5_000))
    expect(quote.request).toBe(request)
    expect(quote.key).toBe(`${source}:1:1:${request.srcToken.toLowerCase()}:${request.destToken.toLowerCase()}:${side}:${request.amount}`)
    expect([quote.srcAmount.toString(), quote.destAmount.toString()]).toEqual(answerAmounts(quote))
    expect(side === 'SELL' ? quote.srcAmount : quote.destAmount).toBe(request.amount)
    expect(side === 'SELL' ? quote.destAmount : quote.srcAmount).toBeGreaterThan(0n)
    if (source !== 'unified') expect(quote.answer.source).toBe(source)
    expect(quote.requestedAt).toBe(5_000)
    expect(quote.receivedAt).toBe(5_001)
  })

  it('emits error events with a growing backoff while the venue fails, then quotes again', async () => {
    await addFault({ route: 'GET /prices', status: 503, times: 3 })
    const { fetch, started } = countingFetch()
    const events = await firstValueFrom(
      pollQuotes({
        api: client(fetch),
        request: sellUsdc('market'),
        decimalsOf: decimalsOf(),
        intervalMs: 10,
        clock: steppingClock(),
        backoff: { initialDelayMs: 40, multiplier: 2, maxDelayMs: 1_000, jitter: 0 },
      }).pipe(
        takeWhile((event) => event.type === 'error', true),
        toArray(),
      ),
    )
    expect(events.map((event) => event.type)).toEqual(['error', 'error', 'error', 'quote'])
    const failures = events.flatMap((event) => (event.type === 'error' ? [event] : []))
    expect(failures.map(({ failures, retryInMs }) => [failures, retryInMs])).toEqual([
      [1, 40],
      [2, 80],
      [3, 160],
    ])
    for (const { error } of failures) {
      expect(error).toBeInstanceOf(ApiRequestError)
      expect((error as ApiRequestError).status).toBe(503)
    }
    expect(started).toHaveLength(4)
    // Each poll after a failure starts no earlier than its backoff (timers may fire a fraction of a ms early).
    for (const [index, { retryInMs }] of failures.entries()) {
      const gap = (started[index + 1]?.at ?? 0) - (started[index]?.at ?? 0)
      expect(gap).toBeGreaterThanOrEqual(retryInMs - 1)
    }
  })

  it('never sends a poll while the previous one is still waiting on a slow venue', async () => {
    await addFault({ route: 'GET /prices', latencyMs: 150 })
    const { fetch, started, mostRunning } = countingFetch()
    const quotes = await firstValueFrom(
      pollQuotes({
        api: client(fetch),
        request: sellUsdc('market'),
        decimalsOf: decimalsOf(),
        intervalMs: 20,
        clock: steppingClock(),
      }).pipe(filter(isQuote), take(3), toArray()),
    )
    expect(quotes).toHaveLength(3)
    expect(mostRunning()).toBe(1)
    expect(started).toHaveLength(3)
  })

  it('sends one poll per tick for two strategies asking for the same quote', async () => {
    const { fetch, started } = countingFetch()
    const request = sellUsdc('delta')
    const sameRequest = { ...request, destToken: request.destToken.toUpperCase().replace('0X', '0x') as QuoteRequest['destToken'] }
    const feed = createQuoteFeed({
      api: client(fetch),
      requests: [request, sameRequest, sellUsdc('market')],
      decimalsOf: decimalsOf(),
      intervalMs: 20,
      clock: steppingClock(),
    })
    expect(feed.requests).toHaveLength(2)
    const [first, second] = await Promise.all([
      firstValueFrom(feed.quotesFor([request]).pipe(take(3), toArray())),
      firstValueFrom(feed.quotesFor([sameRequest]).pipe(take(3), toArray())),
    ])
    expect(second).toEqual(first)
    for (const [index, quote] of first.entries()) expect(second[index]).toBe(quote)
    // Nobody asked for the Market quote, so it was not polled.
    expect(started.map(({ path }) => path)).toEqual(['/v2/delta/prices', '/v2/delta/prices', '/v2/delta/prices'])
  })

  it('aborts the poll in flight when its last subscriber leaves, and polls again for the next one', async () => {
    await addFault({ route: 'GET /prices', latencyMs: 2_000, times: 1 })
    const attempts: ApiTransportEvent[] = []
    const api = createApiClient({ baseUrl: sandbox().url, retry: false, observer: (event) => attempts.push(event) })
    const polls = pollQuotes({ api, request: sellUsdc('market'), decimalsOf: decimalsOf(), intervalMs: 5_000, clock: steppingClock() })
    const events: QuoteEvent[] = []
    const subscription = polls.subscribe((event) => events.push(event))
    await sleep(200)
    subscription.unsubscribe()
    while (attempts.length === 0) await sleep(10)
    expect(attempts).toMatchObject([{ type: 'attempt', endpoint: 'GET /prices', outcome: 'aborted' }])
    expect(events).toEqual([])
    const quote = await firstValueFrom(polls.pipe(filter(isQuote)))
    expect(quote.quote.destAmount).toBeGreaterThan(0n)
  })
})
