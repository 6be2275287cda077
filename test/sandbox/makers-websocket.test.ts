import { createServer, request as httpRequest } from 'node:http'
import { connect, type Socket } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MakerBook } from '../../src/maker/maker-book.js'
import type { MakerServer } from '../../src/maker/server/maker-server.js'
import type { MakerToken } from '../../src/protocol/maker-wire.js'
import type { PriceGrid } from '../../src/protocol/price-grid.js'
import { MakerRegistry } from '../../src/sandbox/makers/maker-registry.js'
import { makerRegistrationSchema } from '../../src/sandbox/makers/maker-settings.js'
import type { MakerStatus } from '../../src/sandbox/makers/registered-maker.js'
import { systemClock } from '../../src/time/clock.js'
import { startTestMakerServer, testMakerCredentials } from '../helpers/maker-server.js'
import { request, sandboxToken, useSandbox } from '../helpers/sandbox.js'
import { waitUntil } from '../helpers/scripted-maker.js'

const chainId = 1
const pricesPath = `/maker/${chainId}/prices`

/** WETH/USDC with the best bid at `bid` (above the pools' ~1952 for 1 WETH sold, so the maker takes the route). */
function gridAt(bid: number): PriceGrid {
  return {
    bids: [
      [String(bid), '2'],
      [String(bid - 5), '10'],
    ],
    asks: [
      [String(bid + 2), '2'],
      [String(bid + 6), '10'],
    ],
  }
}

/** USDC raw units for 1 WETH sold at `bid`. */
const usdcFor = (bid: number) => String(BigInt(bid) * 10n ** 6n)

type MakerProxy = {
  url: string
  /** HTTP requests per path (WebSocket handshakes are not counted). */
  served: (path: string) => number
  /** HTTP requests forwarded and not yet answered. */
  inFlight: () => number
  /** While true, WebSocket handshakes are answered 503. */
  refuseStreams: boolean
  refusedStreams: number
  /** Cuts every open WebSocket connection (as a network failure would). */
  dropStreams: () => void
  close: () => Promise<void>
}

/**
 * Sits between the sandbox and the maker server: forwards HTTP requests (counting them) and WebSocket connections
 * byte for byte, and cuts or refuses the latter on demand.
 */
async function startMakerProxy(target: string): Promise<MakerProxy> {
  const { hostname, port } = new URL(target)
  const counts = new Map<string, number>()
  const streams = new Set<Socket>()
  let inFlight = 0
  const server = createServer((incoming, outgoing) => {
    const path = (incoming.url ?? '/').split('?')[0] ?? '/'
    counts.set(path, (counts.get(path) ?? 0) + 1)
    inFlight += 1
    outgoing.on('close', () => {
      inFlight -= 1
    })
    const forward = httpRequest(
      { host: hostname, port, path: incoming.url, method: incoming.method, headers: incoming.headers },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers)
        answer.pipe(outgoing)
      },
    )
    forward.on('error', () => outgoing.destroy())
    incoming.pipe(forward)
  })
  const proxy: MakerProxy = {
    url: '',
    served: (path) => counts.get(path) ?? 0,
    inFlight: () => inFlight,
    refuseStreams: false,
    refusedStreams: 0,
    dropStreams: () => {
      for (const socket of streams) socket.destroy()
    },
    close: async () => {
      proxy.dropStreams()
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    },
  }
  server.on('upgrade', (incoming, socket: Socket, head: Buffer) => {
    if (proxy.refuseStreams) {
      proxy.refusedStreams += 1
      const body = JSON.stringify({ error: 'stream unavailable' })
      socket.end(
        `HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\nconnection: close\r\n\r\n${body}`,
      )
      return
    }
    const upstream = connect(Number(port), hostname, () => {
      const lines = [`${incoming.method} ${incoming.url} HTTP/1.1`]
      for (let index = 0; index < incoming.rawHeaders.length; index += 2) {
        lines.push(`${incoming.rawHeaders[index]}: ${incoming.rawHeaders[index + 1]}`)
      }
      upstream.write(`${lines.join('\r\n')}\r\n\r\n`)
      upstream.write(head)
      socket.pipe(upstream).pipe(socket)
    })
    const forget = () => {
      socket.destroy()
      upstream.destroy()
      streams.delete(socket)
      streams.delete(upstream)
    }
    for (const end of [socket, upstream]) {
      streams.add(end)
      end.on('close', forget)
      end.on('error', forget)
    }
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  if (address === null || typeof address === 'string') throw new Error('proxy without a port')
  proxy.url = `http://127.0.0.1:${address.port}`
  return proxy
}

describe('sandbox makers: the WebSocket stream', () => {
  const sandbox = useSandbox({
    chainIds: [chainId],
    // One failure pauses the maker (no polls) for 2 s: the error it shows is the stream's, not a later poll's.
    // Levels stay fresh for a minute, so no refresh poll happens while the stream is open during a test.
    makerTiming: {
      pricesIntervalMs: 100,
      requestTimeoutMs: 1_000,
      failuresBeforePause: 1,
      pauseMs: 2_000,
      levelsMaxAgeMs: 60_000,
      streamReconnectMinMs: 100,
      streamReconnectMaxMs: 300,
    },
  })
  let book: MakerBook
  let server: MakerServer
  let proxy: MakerProxy

  beforeAll(async () => {
    const token = (symbol: string): MakerToken => ({
      symbol,
      name: symbol,
      description: `${symbol} of the sandbox`,
      type: 'ERC20',
      ...sandboxToken(sandbox(), chainId, symbol),
    })
    book = new MakerBook([chainId])
    book.update(
      chainId,
      {
        tokens: { WETH: token('WETH'), USDC: token('USDC') },
        pairs: { 'WETH/USDC': { base: 'WETH', quote: 'USDC', liquidityUSD: 100_000 } },
        prices: { 'WETH/USDC': gridAt(1960) },
      },
      Date.now(),
    )
    // A real `deltaflow maker` server (auth on), checking the sandbox's signatures against the wall clock.
    server = await startTestMakerServer(book, systemClock)
    proxy = await startMakerProxy(server.url)
    const registered = await request(sandbox().url, 'POST', '/_sandbox/makers', {
      name: 'streamer',
      chainId,
      url: `${proxy.url}/maker/${chainId}`,
      auth: testMakerCredentials,
      websocket: true,
    })
    expect(registered.status, registered.text).toBe(201)
  })
  afterAll(async () => {
    await request(sandbox().url, 'DELETE', '/_sandbox/makers/streamer')
    await proxy?.close()
    await server?.close()
  })

  const status = async (): Promise<MakerStatus> => {
    const answer = await request(sandbox().url, 'GET', '/_sandbox/makers')
    const maker = (answer.json as { makers: MakerStatus[] }).makers.find((entry) => entry.name === 'streamer')
    if (!maker) throw new Error(`maker not listed: ${answer.text}`)
    return maker
  }
  const sellOneWeth = async () => {
    const query = new URLSearchParams({ srcToken: 'WETH', destToken: 'USDC', amount: String(10n ** 18n), network: String(chainId) })
    const answer = await request(sandbox().url, 'GET', `/prices?${query}&version=6.2`)
    expect(answer.status, answer.text).toBe(200)
    const route = (
      answer.json as { priceRoute: { destAmount: string; bestRoute: { swaps: { swapExchanges: { exchange: string }[] }[] }[] } }
    ).priceRoute
    return { destAmount: route.destAmount, exchange: route.bestRoute[0]?.swaps[0]?.swapExchanges[0]?.exchange }
  }
  const routedAt = (bid: number) =>
    waitUntil(
      async () => {
        const sell = await sellOneWeth()
        return sell.exchange === 'AugustusRFQ' && sell.destAmount === usdcFor(bid)
      },
      { what: `the maker's bid at ${bid} routed` },
    )
  const onTransport = (transport: MakerStatus['transport']) =>
    waitUntil(async () => (await status()).transport === transport, { what: `the maker on ${transport}` })
  /** The /prices polls so far, once none is still out. */
  const settledPolls = async () => {
    await waitUntil(() => proxy.inFlight() === 0, { what: 'no request in flight' })
    return proxy.served(pricesPath)
  }

  it('routes a price the maker pushes on its stream, with no /prices poll', async () => {
    await onTransport('websocket')
    await routedAt(1960)
    const polls = await settledPolls()
    book.update(chainId, { prices: { 'WETH/USDC': gridAt(1970) } }, Date.now())
    await routedAt(1970)
    expect(proxy.served(pricesPath)).toBe(polls)
    expect(await status()).toMatchObject({
      transport: 'websocket',
      websocketUrl: `${proxy.url.replace('http:', 'ws:')}/maker/${chainId}/ws`,
      state: 'ok',
      levelsCached: 4,
    })
  })

  it('falls back to polling when the socket drops, and reopens it with backoff', async () => {
    await onTransport('websocket')
    proxy.refuseStreams = true
    proxy.dropStreams()
    await onTransport('http')
    const polls = proxy.served(pricesPath)
    // Nothing streams now: only a poll can bring this price.
    book.update(chainId, { prices: { 'WETH/USDC': gridAt(1975) } }, Date.now())
    await routedAt(1975)
    expect(proxy.served(pricesPath)).toBeGreaterThan(polls)
    await waitUntil(() => proxy.refusedStreams >= 2, { what: 'a second attempt to reopen the stream' })
    expect((await status()).lastError).toMatch(/refused the handshake with 503: stream unavailable/)

    proxy.refuseStreams = false
    await onTransport('websocket')
    const pollsOnStream = await settledPolls()
    book.update(chainId, { prices: { 'WETH/USDC': gridAt(1980) } }, Date.now())
    await routedAt(1980)
    expect(proxy.served(pricesPath)).toBe(pollsOnStream)
  })

  it('takes the maker out of routing when its stream sends a crossed book', async () => {
    await onTransport('websocket')
    book.update(chainId, { prices: { 'WETH/USDC': { bids: [['1990', '1']], asks: [['1985', '1']] } } }, Date.now())
    const out = await waitUntil(
      async () => {
        const maker = await status()
        return maker.state === 'disabled' ? maker : undefined
      },
      { what: 'the maker disabled' },
    )
    expect(out.lastError).toMatch(/^WebSocket \S+\/maker\/1\/ws sent an invalid message: prices\.WETH\/USDC: crossed book/)
    expect(out).toMatchObject({ transport: 'http', levelsCached: 0 })
    expect((await sellOneWeth()).exchange).not.toBe('AugustusRFQ')

    book.update(chainId, { prices: { 'WETH/USDC': gridAt(1960) } }, Date.now())
    await onTransport('websocket')
    await routedAt(1960)
  })

  it('takes the maker out of routing when its stream sends an invalid message', async () => {
    await onTransport('websocket')
    book.update(chainId, { prices: { 'WETH/USDC': { bids: [['1960', 'plenty']] } } }, Date.now())
    const out = await waitUntil(
      async () => {
        const maker = await status()
        return maker.state === 'disabled' ? maker : undefined
      },
      { what: 'the maker disabled' },
    )
    expect(out.lastError).toMatch(/sent an invalid message: prices\.WETH\/USDC\.bids\.0\.1: expected a decimal string/)
    expect((await sellOneWeth()).exchange).not.toBe('AugustusRFQ')

    book.update(chainId, { prices: { 'WETH/USDC': gridAt(1960) } }, Date.now())
    await onTransport('websocket')
    await routedAt(1960)
  })

  it('answers 400 for a websocket option that is not true, false or a ws(s) URL', async () => {
    const answer = await request(sandbox().url, 'POST', '/_sandbox/makers', {
      name: 'bad-stream',
      chainId,
      url: `${proxy.url}/maker/${chainId}`,
      websocket: 'http://127.0.0.1:1/ws',
    })
    expect(answer.status).toBe(400)
    expect((answer.json as { error: string }).error).toMatch(/body\.websocket: expected a ws\(s\) URL, received protocol http:/)
  })

  describe('a quiet stream', () => {
    // The wall clock this registry signs with and ages levels by, set ahead by the test (the maker checks auth against it).
    const ahead = { ms: 0 }
    const clock = { now: () => Date.now() + ahead.ms }
    let quietServer: MakerServer
    let quietProxy: MakerProxy
    let registry: MakerRegistry

    beforeAll(async () => {
      const weth = sandboxToken(sandbox(), chainId, 'WETH')
      const usdc = sandboxToken(sandbox(), chainId, 'USDC')
      const book = new MakerBook([chainId])
      book.update(
        chainId,
        {
          tokens: {
            WETH: { symbol: 'WETH', name: 'WETH', description: '', type: 'ERC20', ...weth },
            USDC: { symbol: 'USDC', name: 'USDC', description: '', type: 'ERC20', ...usdc },
          },
          pairs: { 'WETH/USDC': { base: 'WETH', quote: 'USDC', liquidityUSD: 100_000 } },
          prices: { 'WETH/USDC': gridAt(1960) },
        },
        clock.now(),
      )
      quietServer = await startTestMakerServer(book, clock)
      quietProxy = await startMakerProxy(quietServer.url)
      registry = new MakerRegistry({
        venue: sandbox().venue,
        timing: { pricesIntervalMs: 50, levelsMaxAgeMs: 10_000 },
        wallClock: clock,
      })
      await registry.register(
        makerRegistrationSchema.parse({
          name: 'quiet',
          chainId,
          url: `${quietProxy.url}/maker/${chainId}`,
          auth: testMakerCredentials,
          websocket: true,
        }),
      )
    })
    afterAll(async () => {
      registry?.stop()
      await quietProxy?.close()
      await quietServer?.close()
    })

    it('refreshes levels the stream left untouched for half their lifetime with a /prices poll', async () => {
      const maker = registry.get('quiet')
      if (!maker) throw new Error('maker not registered')
      await waitUntil(() => maker.status().transport === 'websocket', { what: 'the maker on websocket' })
      await waitUntil(() => quietProxy.inFlight() === 0, { what: 'no request in flight' })
      const polls = quietProxy.served(pricesPath)
      const streamedAt = maker.status().pricedAt ?? 0

      ahead.ms += 5_000
      await waitUntil(() => quietProxy.served(pricesPath) > polls, { what: 'a refresh poll' })
      await waitUntil(() => (maker.status().pricedAt ?? 0) >= streamedAt + 5_000, { what: 'the levels refreshed' })
      expect(maker.status()).toMatchObject({ transport: 'websocket', state: 'ok', levelsCached: 4 })
      expect(maker.liquidity()?.grids['WETH/USDC']).toEqual(gridAt(1960))
    })
  })
})
