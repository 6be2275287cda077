import { setTimeout as sleep } from 'node:timers/promises'
import { afterEach, describe, expect, it } from 'vitest'
import { type CreateApiClientParameters, createApiClient } from '../../src/api/client.js'
import { getDeltaPrices } from '../../src/api/delta/get-delta-prices.js'
import {
  ApiAbortedError,
  ApiClientConfigError,
  ApiNetworkError,
  ApiRequestError,
  ApiServerError,
  ApiTimeoutError,
  RateLimitedError,
} from '../../src/api/errors.js'
import { getChains } from '../../src/api/market/get-chains.js'
import { getMarketPrices } from '../../src/api/market/get-market-prices.js'
import { nativeTokenPlaceholder } from '../../src/protocol/addresses.js'
import { ManualClock } from '../../src/time/clock.js'
import { sandboxToken, useSandbox } from '../helpers/sandbox.js'
import { capturedLogger, watchedDispatcher, watchedFetch } from './watched-fetch.js'

const apiKey = 'dfk_test_5f2c9a7e1b'

/** The two ways the client sends: undici's pooled request (its default) and a fetch given to it. */
const senders = [
  {
    over: 'the pooled undici dispatcher',
    watched: () => {
      const { dispatcher, seen } = watchedDispatcher()
      return { options: { dispatcher }, seen }
    },
  },
  {
    over: 'a given fetch',
    watched: () => {
      const { fetch, seen } = watchedFetch()
      return { options: { fetch }, seen }
    },
  },
]

describe.each(senders)('API client transport over $over', ({ watched }) => {
  const sandbox = useSandbox({ chainIds: [1] })
  afterEach(() => sandbox().faults.clear())

  /** A client on the sandbox with small retry delays, whose requests are watched. */
  const client = (options: Partial<CreateApiClientParameters> = {}) => {
    const { options: sender, seen } = watched()
    const api = createApiClient({
      baseUrl: sandbox().url,
      retry: { retries: 2, minDelayMs: 5, maxDelayMs: 50 },
      ...sender,
      ...options,
    })
    return { api, seen }
  }
  const chainsRoute = 'GET /chains'

  describe('what every request carries', () => {
    it('sends the API key as X-API-KEY and the client partner where the endpoint takes one', async () => {
      const { api, seen } = client({ apiKey, partner: 'deltaflow-tests' })
      const usdc = sandboxToken(sandbox(), 1, 'USDC')
      await getDeltaPrices(api, {
        chainId: 1,
        srcToken: usdc.address,
        destToken: sandboxToken(sandbox(), 1, 'WETH').address,
        amount: 10_000_000n,
        srcDecimals: 6,
        destDecimals: 18,
      })
      await getChains(api)
      expect(seen.map((request) => request.headers.get('X-API-KEY'))).toEqual([apiKey, apiKey])
      expect(seen[0]?.url.searchParams.get('partner')).toBe('deltaflow-tests')
      expect(seen[0]?.url.searchParams.get('amount')).toBe('10000000')
      expect(seen[1]?.url.searchParams.has('partner')).toBe(false)
    })

    it('sends no X-API-KEY header without a key, and a per-call partner over the client one', async () => {
      const { api, seen } = client({ partner: 'deltaflow-tests' })
      await getMarketPrices(api, {
        srcToken: nativeTokenPlaceholder,
        srcDecimals: 18,
        destToken: 'USDC',
        amount: 10n ** 17n,
        partner: 'per-call',
      })
      expect(seen[0]?.headers.has('X-API-KEY')).toBe(false)
      expect(seen[0]?.url.searchParams.get('partner')).toBe('per-call')
    })

    it('always asks GET /prices for version 6.2', async () => {
      const { api, seen } = client()
      const route = await getMarketPrices(api, { srcToken: 'ETH', destToken: 'USDC', amount: 10n ** 17n })
      expect(seen[0]?.url.searchParams.get('version')).toBe('6.2')
      expect(route.version).toBe('6.2')
    })

    it('keeps the API key out of errors and logs', async () => {
      const { logger, lines } = capturedLogger()
      const { api } = client({ apiKey, logger })
      sandbox().faults.add({ route: chainsRoute, status: 503, times: 1 })
      await getChains(api)
      const error = await getMarketPrices(api, { srcToken: '0x0', destToken: 'USDC', amount: 1n }).catch((reason: unknown) => reason)
      expect(error).toBeInstanceOf(ApiRequestError)
      expect(lines.length).toBeGreaterThan(0)
      expect(JSON.stringify(lines)).not.toContain(apiKey)
      expect(String(error)).not.toContain(apiKey)
      expect(JSON.stringify((error as ApiRequestError).details)).not.toContain(apiKey)
    })
  })

  describe('rate limiting by the service (429)', () => {
    it('waits the Retry-After delay and retries until the request succeeds', async () => {
      const { logger, lines } = capturedLogger()
      const { api, seen } = client({ logger, retry: { retries: 2, minDelayMs: 5, maxDelayMs: 2_000 } })
      sandbox().faults.add({ route: chainsRoute, status: 429, retryAfterSeconds: 1, times: 1 })
      const chains = await getChains(api)
      expect(chains.map((chain) => chain.chainId)).toEqual([1])
      expect(seen).toHaveLength(2)
      expect(lines.filter((line) => line.msg === 'API request failed; retrying')).toMatchObject([
        { endpoint: chainsRoute, attempt: 1, delayMs: 1000 },
      ])
    })

    it('throws RateLimitedError, retryable and carrying Retry-After, once the retries are spent', async () => {
      const { api, seen } = client()
      sandbox().faults.add({ route: chainsRoute, status: 429, retryAfterSeconds: 0 })
      const error = await getChains(api).catch((reason: unknown) => reason)
      expect(error).toBeInstanceOf(RateLimitedError)
      expect(error).toMatchObject({ errorClass: 'retryable', status: 429, retryAfterMs: 0, endpoint: chainsRoute })
      expect(seen).toHaveLength(3)
    })

    it('does not wait a Retry-After longer than the maximum delay: it throws at once, carrying the delay', async () => {
      const { api, seen } = client()
      sandbox().faults.add({ route: chainsRoute, status: 429, retryAfterSeconds: 120 })
      await expect(getChains(api)).rejects.toMatchObject({ name: 'RateLimitedError', retryAfterMs: 120_000 })
      expect(seen).toHaveLength(1)
    })

    it('reads a Retry-After HTTP date against the client clock', async () => {
      const { logger, lines } = capturedLogger()
      const clock = new ManualClock(Date.parse('2026-03-01T12:00:00Z'))
      let calls = 0
      const api = createApiClient({
        baseUrl: 'http://recorded.invalid',
        clock,
        logger,
        retry: { retries: 1, minDelayMs: 5, maxDelayMs: 2_000 },
        fetch: async () =>
          ++calls === 1
            ? new Response('', { status: 429, headers: { 'retry-after': 'Sun, 01 Mar 2026 12:00:01 GMT' } })
            : Response.json({ chains: [{ chainId: 1, name: 'Ethereum' }] }),
      })
      expect(await getChains(api)).toEqual([{ chainId: 1, name: 'Ethereum' }])
      expect(lines.filter((line) => line.msg === 'API request failed; retrying')).toMatchObject([{ delayMs: 1000 }])
    })

    it('reads a 429 with an empty body by its status', async () => {
      const { api } = client({ retry: false })
      sandbox().faults.add({ route: chainsRoute, status: 429, body: 'empty' })
      await expect(getChains(api)).rejects.toBeInstanceOf(RateLimitedError)
    })
  })

  describe('server failures (5xx)', () => {
    it('retries a 5xx and returns the answer that follows', async () => {
      const { api, seen } = client()
      sandbox().faults.add({ route: chainsRoute, status: 503, times: 2 })
      expect(await getChains(api)).toHaveLength(1)
      expect(seen).toHaveLength(3)
    })

    it('throws ApiServerError for a 5xx whose body is not JSON, keeping an excerpt of it', async () => {
      const { api, seen } = client()
      sandbox().faults.add({ route: chainsRoute, status: 502, body: 'non-json' })
      const error = await getChains(api).catch((reason: unknown) => reason)
      expect(error).toBeInstanceOf(ApiServerError)
      expect(error).toMatchObject({ status: 502, serviceMessage: undefined, errorClass: 'retryable' })
      expect((error as ApiServerError).details.body).toContain('upstream error')
      expect(seen).toHaveLength(3)
    })

    it('retries a 408 (the service gave up waiting for the request) like a 5xx', async () => {
      const { api, seen } = client()
      sandbox().faults.add({ route: chainsRoute, status: 408, times: 1 })
      expect(await getChains(api)).toHaveLength(1)
      expect(seen).toHaveLength(2)
    })

    it('throws ApiServerError for a 5xx with an empty body', async () => {
      const { api } = client()
      sandbox().faults.add({ route: chainsRoute, status: 500, body: 'empty' })
      await expect(getChains(api)).rejects.toMatchObject({ name: 'ApiServerError', status: 500, serviceMessage: undefined })
    })

    it('does not retry a business refusal (4xx)', async () => {
      const { api, seen } = client()
      await expect(getMarketPrices(api, { srcToken: 'ETH', destToken: 'USDC', amount: 1n, network: 99 })).rejects.toMatchObject({
        name: 'UnsupportedChainError',
        errorClass: 'operational',
      })
      expect(seen).toHaveLength(1)
    })
  })

  describe('connection faults', () => {
    it('retries a dropped connection', async () => {
      const { api, seen } = client()
      sandbox().faults.add({ route: chainsRoute, drop: true, times: 1 })
      expect(await getChains(api)).toHaveLength(1)
      expect(seen).toHaveLength(2)
    })

    it('throws ApiNetworkError when the connection keeps dropping', async () => {
      const { api, seen } = client()
      sandbox().faults.add({ route: chainsRoute, drop: true })
      const error = await getChains(api).catch((reason: unknown) => reason)
      expect(error).toBeInstanceOf(ApiNetworkError)
      expect(error).toMatchObject({ errorClass: 'retryable', endpoint: chainsRoute })
      expect(seen).toHaveLength(3)
    })

    it('retries an answer slower than the timeout', async () => {
      const { api, seen } = client({ timeoutMs: 150 })
      sandbox().faults.add({ route: chainsRoute, latencyMs: 1_000, times: 1 })
      expect(await getChains(api)).toHaveLength(1)
      expect(seen).toHaveLength(2)
    })

    it('throws ApiTimeoutError when every attempt is slower than the timeout', async () => {
      const { api, seen } = client({ timeoutMs: 150, retry: { retries: 1, minDelayMs: 5, maxDelayMs: 50 } })
      sandbox().faults.add({ route: chainsRoute, latencyMs: 1_000 })
      const error = await getChains(api).catch((reason: unknown) => reason)
      expect(error).toBeInstanceOf(ApiTimeoutError)
      expect(error).toMatchObject({ errorClass: 'retryable', details: { timeoutMs: 150 } })
      expect(seen).toHaveLength(2)
    })

    it('takes a per-call timeout over the client one', async () => {
      const { api } = client({ timeoutMs: 10_000, retry: false })
      sandbox().faults.add({ route: chainsRoute, latencyMs: 1_000 })
      await expect(getChains(api, { timeoutMs: 100 })).rejects.toBeInstanceOf(ApiTimeoutError)
    })
  })

  describe('cancellation', () => {
    it('aborts a request in flight through its AbortSignal', async () => {
      const { api } = client({ retry: false })
      sandbox().faults.add({ route: chainsRoute, latencyMs: 2_000 })
      const controller = new AbortController()
      const pending = getChains(api, { signal: controller.signal })
      await sleep(50)
      controller.abort()
      await expect(pending).rejects.toBeInstanceOf(ApiAbortedError)
    })

    it('aborts while waiting to retry, without another attempt', async () => {
      const { api, seen } = client({ retry: { retries: 3, minDelayMs: 10_000, maxDelayMs: 10_000 } })
      sandbox().faults.add({ route: chainsRoute, status: 503 })
      const controller = new AbortController()
      const pending = getChains(api, { signal: controller.signal })
      while (seen.length === 0) await sleep(10)
      await sleep(50)
      controller.abort()
      await expect(pending).rejects.toMatchObject({ name: 'ApiAbortedError', errorClass: 'operational' })
      expect(seen).toHaveLength(1)
    })

    it('sends nothing when the signal is already aborted', async () => {
      const { api, seen } = client()
      await expect(getChains(api, { signal: AbortSignal.abort() })).rejects.toBeInstanceOf(ApiAbortedError)
      expect(seen).toHaveLength(0)
    })
  })

  describe('client-side rate limit', () => {
    it('holds requests beyond the per-second limit of a host until the next window', async () => {
      const { api, seen } = client({ rateLimit: { requestsPerSecond: 2 } })
      const all = Promise.all([getChains(api), getChains(api), getChains(api)])
      await sleep(200)
      expect(seen).toHaveLength(2)
      await all
      expect(seen).toHaveLength(3)
    })
  })

  describe('configuration', () => {
    it.each([
      ['a baseUrl that is not a URL', { baseUrl: 'sandbox' }],
      ['credentials in the baseUrl', { baseUrl: 'https://user:secret@api.example' }],
      ['a zero timeout', { baseUrl: 'https://api.example', timeoutMs: 0 }],
      ['a negative retry count', { baseUrl: 'https://api.example', retry: { retries: -1 } }],
      ['a minimum delay above the maximum', { baseUrl: 'https://api.example', retry: { minDelayMs: 5, maxDelayMs: 1 } }],
    ])('refuses %s', (_, parameters) => {
      expect(() => createApiClient(parameters)).toThrow(ApiClientConfigError)
    })

    it('does not repeat credentials of a refused baseUrl', () => {
      expect(() => createApiClient({ baseUrl: 'https://user:secret@api.example' })).toThrow(/^((?!secret)[\s\S])*$/)
    })
  })
})
