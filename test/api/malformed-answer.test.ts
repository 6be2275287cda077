import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type ApiTransportEvent, createApiClient } from '../../src/api/client.js'
import { getDeltaOrders } from '../../src/api/delta/get-delta-orders.js'
import { ApiMalformedAnswerError, ApiResponseError } from '../../src/api/errors.js'
import { getChains } from '../../src/api/market/get-chains.js'
import { developmentAccounts } from '../../src/sandbox/chains/accounts.js'
import { placeOpenLimitOrder } from '../helpers/executor.js'
import { readBody } from '../helpers/fault-proxy.js'
import { useSandbox } from '../helpers/sandbox.js'
import { createTempDirectory } from '../helpers/temp-directory.js'

const directory = createTempDirectory('deltaflow-malformed-')
afterAll(() => directory.cleanup())

/** What the proxy does to the next answers of one route ("GET /chains"): cut them in half, or replace them. */
type AnswerFault = { times: number; body: (answer: string) => string }

/**
 * A real HTTP proxy in front of the sandbox: every request is forwarded (the sandbox acts on it), and the 2xx answers
 * of a route with a fault set are damaged on their way back, the first `times` times.
 */
async function startAnswerProxy(target: string) {
  const faults = new Map<string, AnswerFault>()
  const seen = new Map<string, number>()
  const server: Server = createServer((request, response) => {
    void (async () => {
      const route = `${request.method} ${new URL(request.url ?? '/', target).pathname}`
      seen.set(route, (seen.get(route) ?? 0) + 1)
      const body = (await readBody(request)).toString()
      const forwarded = await fetch(new URL(request.url ?? '/', target), {
        method: request.method ?? 'GET',
        headers: { 'content-type': 'application/json' },
        body: body.length > 0 ? body : null,
      })
      let text = await forwarded.text()
      const fault = faults.get(route)
      if (fault && fault.times > 0 && forwarded.ok) {
        fault.times -= 1
        text = fault.body(text)
      }
      response.writeHead(forwarded.status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) })
      response.end(text)
    })().catch(() => response.destroy())
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    /** Cuts the next `times` 2xx answers of `route` in half (valid length, broken JSON). */
    truncate: (route: string, times: number) => faults.set(route, { times, body: (answer) => answer.slice(0, answer.length / 2) }),
    replace: (route: string, times: number, text: string) => faults.set(route, { times, body: () => text }),
    /** Requests of `route` that reached the proxy. */
    count: (route: string) => seen.get(route) ?? 0,
    reset: () => {
      faults.clear()
      seen.clear()
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

describe('a 2xx answer cut off or garbled on its way', () => {
  const sandbox = useSandbox({ chainIds: [1] })
  let proxy: Awaited<ReturnType<typeof startAnswerProxy>>
  beforeAll(async () => {
    proxy = await startAnswerProxy(sandbox().url)
  })
  afterAll(() => proxy?.close())

  const client = (retries: number) => {
    const events: ApiTransportEvent[] = []
    const api = createApiClient({
      baseUrl: proxy.url,
      retry: { retries, minDelayMs: 5, maxDelayMs: 20 },
      observer: (event) => events.push(event),
    })
    return { api, events }
  }

  it('is retried like a 5xx, and the answer of the retry is returned', async () => {
    proxy.reset()
    proxy.truncate('GET /chains', 2)
    const { api, events } = client(2)

    const chains = await getChains(api)

    expect(chains.map((chain) => chain.chainId)).toContain(1)
    expect(proxy.count('GET /chains')).toBe(3)
    expect(events.map((event) => (event.type === 'attempt' ? event.outcome : `retry ${event.reason}`))).toEqual([
      'malformed',
      'retry malformed',
      'malformed',
      'retry malformed',
      'ok',
    ])
  })

  it('ends in a retryable ApiMalformedAnswerError naming the endpoint, the status and an excerpt once the retries are spent', async () => {
    proxy.reset()
    proxy.truncate('GET /chains', 3)
    const { api } = client(2)

    const error = await getChains(api).catch((caught: unknown) => caught)

    expect(error).toBeInstanceOf(ApiMalformedAnswerError)
    const malformed = error as ApiMalformedAnswerError
    expect(malformed).toMatchObject({ endpoint: 'GET /chains', status: 200, errorClass: 'retryable' })
    expect(JSON.parse(malformed.excerpt)).toMatch(/^\{"chains":\[\{"chainId":/)
    expect(malformed.message).toContain(`received: ${malformed.excerpt}`)
    // Where the client sent it stays out of the error (the base URL may be a private host).
    expect(malformed.message).not.toContain(proxy.url.replace('http://', ''))
    expect(proxy.count('GET /chains')).toBe(3)
  })

  it('keeps a 2xx whose JSON is not the documented shape a permanent ApiResponseError, sent once', async () => {
    proxy.reset()
    proxy.replace('GET /chains', 1, '{"chains":"none"}')
    const { api } = client(2)

    const error = await getChains(api).catch((caught: unknown) => caught)

    expect(error).toBeInstanceOf(ApiResponseError)
    expect((error as ApiResponseError).errorClass).toBe('fatal')
    expect(proxy.count('GET /chains')).toBe(1)
  })

  it('places exactly one order when the answer to its submission is cut off: the retry is answered with the stored order', async () => {
    proxy.reset()
    proxy.truncate('POST /v2/delta/orders', 1)
    const accountIndex = 5

    const { placed } = await placeOpenLimitOrder(
      { ...sandbox(), url: proxy.url },
      { accountIndex, journalFile: directory.path('submission.sqlite'), key: 'cut-off-submission' },
    )

    expect(proxy.count('POST /v2/delta/orders')).toBe(2)
    expect(placed.status).toBe('accepted')
    expect(placed.order?.submitted).toBe(true)
    const owner = developmentAccounts[accountIndex]?.address ?? '0x'
    const atVenue = await getDeltaOrders(createApiClient({ baseUrl: sandbox().url }), { userAddress: owner })
    expect(atVenue.data.map((order) => order.orderHash.toLowerCase())).toEqual([placed.order?.orderHash])
  })
})
