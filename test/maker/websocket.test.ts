import type { Address } from 'viem'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import type { MakerBook } from '../../src/maker/maker-book.js'
import type { MakerServer } from '../../src/maker/server/maker-server.js'
import { makerAuthHeaders } from '../../src/protocol/maker-auth.js'
import { makerStreamMessageSchema } from '../../src/protocol/maker-wire.js'
import { developmentAccounts } from '../../src/sandbox/chains/accounts.js'
import { ManualClock } from '../../src/time/clock.js'
import {
  createTestMakerBook,
  firmBody,
  makerRequest,
  startTestMakerServer,
  testMakerCredentials,
  testMakerPrices,
} from '../helpers/maker-server.js'

const startMs = 1_700_000_000_000

type Connection = { socket: WebSocket; next: (timeoutMs?: number) => Promise<unknown>; closed: Promise<{ code: number; reason: string }> }
type Refusal = { status: number; json: unknown }

/** Opens the stream with `headers`; resolves with the open connection or the HTTP answer refusing the handshake. */
function connectStream(url: string, headers: Record<string, string>): Promise<Connection | Refusal> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, { headers })
    const queue: unknown[] = []
    const waiting: ((message: unknown) => void)[] = []
    socket.on('message', (data) => {
      const message = JSON.parse(String(data))
      const waiter = waiting.shift()
      if (waiter) waiter(message)
      else queue.push(message)
    })
    const closed = new Promise<{ code: number; reason: string }>((resolveClose) =>
      socket.on('close', (code, reason) => resolveClose({ code, reason: String(reason) })),
    )
    const next = (timeoutMs = 2_000) =>
      new Promise<unknown>((resolveNext, rejectNext) => {
        if (queue.length > 0) return resolveNext(queue.shift())
        const timer = setTimeout(() => rejectNext(new Error(`no stream message within ${timeoutMs} ms`)), timeoutMs)
        waiting.push((message) => {
          clearTimeout(timer)
          resolveNext(message)
        })
      })
    socket.on('open', () => resolve({ socket, next, closed }))
    socket.on('unexpected-response', (_request, response) => {
      let text = ''
      response.on('data', (chunk: Buffer) => {
        text += chunk.toString()
      })
      response.on('end', () => {
        socket.terminate()
        resolve({ status: response.statusCode ?? 0, json: text ? JSON.parse(text) : undefined })
      })
    })
    socket.on('error', (error) => {
      if (socket.readyState !== WebSocket.CLOSED) reject(error)
    })
  })
}

function isConnection(value: Connection | Refusal): value is Connection {
  return 'socket' in value
}

describe('maker WebSocket stream', () => {
  const clock = new ManualClock(startMs)
  let book: MakerBook
  let server: MakerServer
  const open: WebSocket[] = []
  const wsUrl = () => `${server.url.replace('http://', 'ws://')}/maker/1/ws`
  const signedHeaders = (path = '/maker/1/ws') => {
    clock.advance(1)
    return makerAuthHeaders(testMakerCredentials, { nowMs: clock.now(), method: 'GET', path })
  }
  const connect = async () => {
    const result = await connectStream(wsUrl(), signedHeaders())
    if (!isConnection(result)) throw new Error(`handshake refused: ${result.status} ${JSON.stringify(result.json)}`)
    open.push(result.socket)
    return result
  }

  beforeAll(async () => {
    book = createTestMakerBook([1], startMs)
    server = await startTestMakerServer(book, clock)
  })
  afterEach(() => {
    for (const socket of open.splice(0)) socket.terminate()
    book.update(1, { prices: testMakerPrices }, startMs)
  })
  afterAll(() => server.close())

  it('sends the full tokens, pairs, prices and blacklist first', async () => {
    book.update(1, { blacklist: [developmentAccounts[8]?.address as Address] }, startMs)
    const { next } = await connect()
    const first = makerStreamMessageSchema.parse(await next())
    expect(Object.keys(first.tokens ?? {}).sort()).toEqual(['DAI', 'USDC', 'WBTC', 'WETH'])
    expect(Object.keys(first.pairs ?? {}).sort()).toEqual(['WBTC/USDC', 'WETH/USDC'])
    expect(first.prices).toEqual(testMakerPrices)
    expect(first.blacklist).toEqual([developmentAccounts[8]?.address])
  })

  it('sends only the grid that changed on a prices update', async () => {
    const { next } = await connect()
    await next()
    const grid = { bids: [['1990', '1']], asks: [['2010', '1']] } as const
    book.update(1, { prices: { ...testMakerPrices, 'WETH/USDC': grid } }, startMs)
    expect(await next()).toEqual({ prices: { 'WETH/USDC': grid } })
  })

  it('sends a removed side as absent and a pair no longer quoted as {}', async () => {
    const { next } = await connect()
    await next()
    book.update(1, { prices: { 'WETH/USDC': { bids: testMakerPrices['WETH/USDC']?.bids } } }, startMs)
    expect(await next()).toEqual({ prices: { 'WETH/USDC': { bids: testMakerPrices['WETH/USDC']?.bids }, 'WBTC/USDC': {} } })
  })

  it('sends only the newly blacklisted addresses, lowercase', async () => {
    const { next } = await connect()
    await next()
    const known = developmentAccounts[8]?.address as Address
    const added = developmentAccounts[9]?.address as Address
    book.update(1, { blacklist: [known, added] }, startMs)
    expect(await next()).toEqual({ blacklist: [added.toLowerCase()] })
  })

  it('sends every pair as {} when the maker goes off, and the full prices when it comes back', async () => {
    const { next } = await connect()
    await next()
    book.setOff('risk limit: WETH inventory below floor')
    expect(await next()).toEqual({
      prices: { 'WETH/USDC': {}, 'WBTC/USDC': {} },
      message: 'maker is off: risk limit: WETH inventory below floor',
    })
    book.update(1, { prices: testMakerPrices }, startMs)
    expect(await next()).toEqual({ prices: testMakerPrices })
  })

  it('sends no message for a firm quote (never an order)', async () => {
    const { next } = await connect()
    await next()
    clock.advance(1)
    const firm = await makerRequest(server.url, {
      method: 'POST',
      path: '/maker/1/firm',
      body: firmBody({ takerAmount: '1000000' }),
      credentials: testMakerCredentials,
      nowMs: clock.now(),
    })
    expect(firm.status).toBe(200)
    await expect(next(200)).rejects.toThrow('no stream message')
  })

  it('refuses a handshake without authentication with a JSON 401', async () => {
    const result = await connectStream(wsUrl(), {})
    expect(result).toEqual({
      status: 401,
      json: { error: 'missing authentication headers X-AUTH-DOMAIN, X-AUTH-ACCESS-KEY, X-AUTH-TIMESTAMP, X-AUTH-SIGNATURE' },
    })
  })

  it('refuses a handshake signed over another path', async () => {
    const result = await connectStream(wsUrl(), signedHeaders('/maker/1/prices'))
    expect(isConnection(result)).toBe(false)
    expect((result as Refusal).status).toBe(401)
    expect(((result as Refusal).json as { error: string }).error).toMatch(/^X-AUTH-SIGNATURE does not match/)
  })

  it('refuses a replayed handshake', async () => {
    const headers = signedHeaders()
    const first = await connectStream(wsUrl(), headers)
    expect(isConnection(first)).toBe(true)
    if (isConnection(first)) open.push(first.socket)
    const replay = await connectStream(wsUrl(), headers)
    expect((replay as Refusal).status).toBe(401)
  })
})

describe('maker WebSocket stream on halt', () => {
  const clock = new ManualClock(startMs)
  let server: MakerServer
  beforeAll(async () => {
    server = await startTestMakerServer(createTestMakerBook([1], startMs), clock)
  })
  afterAll(() => server.close())

  it('disconnects every socket with the reason, then refuses reconnection and requests with 503', async () => {
    const url = `${server.url.replace('http://', 'ws://')}/maker/1/ws`
    const headers = () => {
      clock.advance(1)
      return makerAuthHeaders(testMakerCredentials, { nowMs: clock.now(), method: 'GET', path: '/maker/1/ws' })
    }
    const connections = [await connectStream(url, headers()), await connectStream(url, headers())]
    const closes = connections.map((connection) => {
      if (!isConnection(connection)) throw new Error('handshake refused')
      return connection.closed
    })
    server.halt('operator stop')
    for (const close of await Promise.all(closes)) expect(close).toEqual({ code: 1001, reason: 'maker stopped: operator stop' })
    expect(await connectStream(url, headers())).toEqual({ status: 503, json: { error: 'maker stopped', reason: 'operator stop' } })
    clock.advance(1)
    const prices = await makerRequest(server.url, { path: '/maker/1/prices', credentials: testMakerCredentials, nowMs: clock.now() })
    expect(prices.status).toBe(503)
    expect(prices.json).toEqual({ error: 'maker stopped', reason: 'operator stop' })
  })
})
