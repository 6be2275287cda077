import { connect } from 'node:net'
import fc from 'fast-check'
import { type Address, type Hex, recoverTypedDataAddress } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { MakerBook } from '../../src/maker/maker-book.js'
import type { FirmQuoteRecord, MakerServer } from '../../src/maker/server/maker-server.js'
import { createRfqOrderDigest } from '../../src/maker/server/rfq-order-digest.js'
import { makerAuthHeaders } from '../../src/protocol/maker-auth.js'
import {
  blacklistResponseSchema,
  firmOrderSchema,
  pairsResponseSchema,
  pricesResponseSchema,
  tokensResponseSchema,
} from '../../src/protocol/maker-wire.js'
import { unpackNonceAndMeta } from '../../src/protocol/nonce-and-meta.js'
import { fillFromGrid } from '../../src/protocol/price-grid.js'
import { buildRfqOrderTypedData, hashRfqOrder } from '../../src/protocol/rfq-order.js'
import { developmentAccounts } from '../../src/sandbox/chains/accounts.js'
import { ManualClock } from '../../src/time/clock.js'
import {
  createTestMakerBook,
  firmBody,
  makerRequest,
  startTestMakerServer,
  testMakerAccount,
  testMakerCredentials,
  testMakerPrices,
  testMakerTokens,
  testRfqAddress,
} from '../helpers/maker-server.js'
import { addressArbitrary, uintArbitrary } from '../protocol/arbitraries.js'

const startMs = 1_700_000_000_000
const { WETH, USDC, WBTC, DAI } = testMakerTokens
const user = developmentAccounts[3]?.address as Address
const wethUsdc = testMakerPrices['WETH/USDC'] ?? {}

/** A maker server for one describe block: chain 1 under /maker/1, auth on, a manual clock. */
function useMakerServer(overrides: Parameters<typeof startTestMakerServer>[2] = {}) {
  const clock = new ManualClock(startMs)
  const state: { server?: MakerServer; book?: MakerBook } = {}
  beforeAll(async () => {
    state.book = createTestMakerBook([1], startMs)
    state.server = await startTestMakerServer(state.book, clock, overrides)
  })
  afterAll(() => state.server?.close())
  // Each request is signed a millisecond later: the same request signed twice in one millisecond is a replay.
  const signed = (method: string, path: string, body?: unknown) => {
    clock.advance(1)
    return makerRequest(state.server?.url ?? '', { method, path, body, credentials: testMakerCredentials, nowMs: clock.now() })
  }
  return {
    clock,
    signed,
    firm: (fields: Parameters<typeof firmBody>[0]) => signed('POST', '/maker/1/firm', firmBody(fields)),
    server: () => state.server as MakerServer,
    book: () => state.book as MakerBook,
  }
}

describe('maker server GET endpoints', () => {
  const maker = useMakerServer()

  it('serves /tokens keyed by id with lowercase addresses', async () => {
    const answer = await maker.signed('GET', '/maker/1/tokens')
    expect(answer.status).toBe(200)
    expect(answer.headers['content-type']).toMatch(/^application\/json/)
    const tokens = tokensResponseSchema.parse(answer.json).tokens
    expect(Object.keys(tokens).sort()).toEqual(['DAI', 'USDC', 'WBTC', 'WETH'])
    expect((answer.json as { tokens: { USDC: { address: string } } }).tokens.USDC.address).toBe(USDC.address.toLowerCase())
    expect(tokens.USDC?.decimals).toBe(6)
  })

  it('serves /pairs with base, quote and liquidityUSD', async () => {
    const answer = await maker.signed('GET', '/maker/1/pairs')
    expect(answer.status).toBe(200)
    expect(pairsResponseSchema.parse(answer.json).pairs['WETH/USDC']).toEqual({ base: 'WETH', quote: 'USDC', liquidityUSD: 250_000 })
  })

  it('serves /prices as the book holds them, a missing side absent', async () => {
    const answer = await maker.signed('GET', '/maker/1/prices')
    expect(answer.status).toBe(200)
    const prices = pricesResponseSchema.parse(answer.json).prices
    expect(prices['WETH/USDC']).toEqual(wethUsdc)
    expect(answer.json).toEqual({ prices: { 'WETH/USDC': wethUsdc, 'WBTC/USDC': { bids: [['60000', '0.5']] } } })
  })

  it('serves /blacklist lowercase and without duplicates', async () => {
    maker.book().update(1, { blacklist: [developmentAccounts[7]?.address as Address, developmentAccounts[7]?.address as Address] }, startMs)
    const answer = await maker.signed('GET', '/maker/1/blacklist')
    expect(answer.status).toBe(200)
    expect(blacklistResponseSchema.parse(answer.json).blacklist).toHaveLength(1)
    expect(answer.json).toEqual({ blacklist: [developmentAccounts[7]?.address.toLowerCase()] })
  })

  it('serves the new prices after a book update', async () => {
    const grid = { bids: [['1500', '2']], asks: [['1501', '2']] } as const
    maker.book().update(1, { prices: { ...testMakerPrices, 'WETH/USDC': grid } }, startMs)
    const answer = await maker.signed('GET', '/maker/1/prices')
    expect(answer.status).toBe(200)
    expect((answer.json as { prices: Record<string, unknown> }).prices['WETH/USDC']).toEqual(grid)
    maker.book().update(1, { prices: testMakerPrices }, startMs)
  })

  it('refuses a query string with 400 after authenticating it', async () => {
    const answer = await maker.signed('GET', '/maker/1/prices?network=1')
    expect(answer.status).toBe(400)
    expect(answer.json).toEqual({ error: expect.stringContaining('query parameters are not part of the maker interface') })
  })

  it('answers an unknown path with a JSON 404 and a wrong method with a JSON 405', async () => {
    const unknown = await maker.signed('GET', '/maker/1/orders')
    expect(unknown.status).toBe(404)
    expect(unknown.json).toEqual({ error: 'no endpoint GET /maker/1/orders' })
    const wrongMethod = await maker.signed('DELETE', '/maker/1/prices')
    expect(wrongMethod.status).toBe(405)
    expect(wrongMethod.headers.allow).toBe('GET')
    expect(wrongMethod.json).toEqual({ error: 'method DELETE is not allowed on /maker/1/prices; use GET' })
  })
})

describe('maker server POST /firm', () => {
  const records: FirmQuoteRecord[] = []
  const maker = useMakerServer({ recordFirmQuote: (record) => records.push(record) })

  const orderOf = (json: unknown) => firmOrderSchema.parse((json as { order: unknown }).order)

  it('prices a user buying WETH for a given USDC takerAmount from the asks, rounding the WETH down', async () => {
    const answer = await maker.firm({ takerAmount: '5000000000' })
    expect(answer.status).toBe(200)
    const order = orderOf(answer.json)
    const fill = fillFromGrid(wethUsdc, { src: 'quote', side: 'SELL', amount: 5_000_000_000n, baseDecimals: 18, quoteDecimals: 6 })
    expect(fill.ok && fill.amount).toBe(order.makerAmount)
    expect(order.takerAmount).toBe(5_000_000_000n)
    expect(order.makerAsset).toBe(WETH.address)
    expect(order.takerAsset).toBe(USDC.address)
  })

  it('prices a user buying a given WETH makerAmount from the asks, rounding the USDC up', async () => {
    const answer = await maker.firm({ makerAmount: '2000000000000000001' })
    expect(answer.status).toBe(200)
    const order = orderOf(answer.json)
    const fill = fillFromGrid(wethUsdc, {
      src: 'quote',
      side: 'BUY',
      amount: 2_000_000_000_000_000_001n,
      baseDecimals: 18,
      quoteDecimals: 6,
    })
    expect(fill.ok && fill.amount).toBe(order.takerAmount)
    // 1.5 WETH at 2000.5 plus 0.5…01 at 2001.75, rounded up.
    expect(order.takerAmount).toBe(4_001_625_001n)
    expect(order.makerAmount).toBe(2_000_000_000_000_000_001n)
  })

  it('prices a user selling a given WETH takerAmount for USDC from the bids', async () => {
    const answer = await maker.firm({ makerAsset: USDC.address, takerAsset: WETH.address, takerAmount: '3000000000000000000' })
    expect(answer.status).toBe(200)
    const order = orderOf(answer.json)
    const fill = fillFromGrid(wethUsdc, {
      src: 'base',
      side: 'SELL',
      amount: 3_000_000_000_000_000_000n,
      baseDecimals: 18,
      quoteDecimals: 6,
    })
    expect(fill.ok && fill.amount).toBe(order.makerAmount)
    expect(order.makerAmount).toBe(5_996_625_000n)
    expect(order.makerAsset).toBe(USDC.address)
  })

  it('prices a user asking a given USDC makerAmount for WETH from the bids inverted', async () => {
    const answer = await maker.firm({ makerAsset: USDC.address, takerAsset: WETH.address, makerAmount: '1000000000' })
    expect(answer.status).toBe(200)
    const order = orderOf(answer.json)
    const fill = fillFromGrid(wethUsdc, { src: 'base', side: 'BUY', amount: 1_000_000_000n, baseDecimals: 18, quoteDecimals: 6 })
    expect(fill.ok && fill.amount).toBe(order.takerAmount)
    expect(order.makerAmount).toBe(1_000_000_000n)
  })

  it('puts the user in the low 160 bits of nonceAndMeta and a different random part below 2^96 in each quote', async () => {
    const first = orderOf((await maker.firm({ takerAmount: '1000000' })).json)
    const second = orderOf((await maker.firm({ takerAmount: '1000000' })).json)
    for (const order of [first, second]) {
      expect(unpackNonceAndMeta(order.nonceAndMeta).intendedTaker).toBe(user)
      expect(order.nonceAndMeta >> 160n < 1n << 96n).toBe(true)
    }
    expect(first.nonceAndMeta).not.toBe(second.nonceAndMeta)
  })

  it('names the maker, the requested taker and an expiry of the clock plus 180 s', async () => {
    const order = orderOf((await maker.firm({ takerAmount: '1000000' })).json)
    expect(order.maker).toBe(testMakerAccount.address)
    expect(order.taker).toBe(developmentAccounts[4]?.address)
    expect(order.expiry).toBe(Math.floor(maker.clock.now() / 1000) + 180)
    expect(order.expiry).toBeGreaterThanOrEqual(Math.floor(maker.clock.now() / 1000) + 120)
  })

  it('signs the order so that it recovers to the maker under the RFQ domain', async () => {
    const answer = await maker.firm({ takerAmount: '7000000' })
    const order = orderOf(answer.json)
    const { signature, ...unsigned } = order
    const typedData = buildRfqOrderTypedData(
      { ...unsigned, expiry: BigInt(unsigned.expiry) },
      { chainId: 1, verifyingContract: testRfqAddress },
    )
    expect(await recoverTypedDataAddress({ ...typedData, signature })).toBe(testMakerAccount.address)
    expect((answer.json as { order: { signature: string } }).order.signature).toMatch(/^0x[0-9a-f]{130}$/)
  })

  it('records each firm quote with its order hash before answering', async () => {
    records.length = 0
    const answer = await maker.firm({ takerAmount: '9000000' })
    const order = orderOf(answer.json)
    expect(records).toHaveLength(1)
    const record = records[0] as FirmQuoteRecord
    const { signature: _signature, ...unsigned } = order
    expect(record.orderHash).toBe(
      hashRfqOrder({ ...unsigned, expiry: BigInt(unsigned.expiry) }, { chainId: 1, verifyingContract: testRfqAddress }),
    )
    expect(record.order).toEqual(order)
    expect(record.request.takerAmount).toBe(9_000_000n)
    expect(record.quotedAt).toBe(maker.clock.now())
    expect(record.chainId).toBe(1)
  })

  it('normalises address case in the request', async () => {
    const answer = await maker.firm({
      makerAsset: WETH.address.toUpperCase().replace('0X', '0x'),
      takerAsset: USDC.address.toLowerCase(),
      takerAmount: '1000000',
    })
    expect(answer.status).toBe(200)
  })

  it('answers a blacklisted user with a success without order, whatever the case of the address', async () => {
    const blacklisted = developmentAccounts[6]?.address as Address
    maker.book().update(1, { blacklist: [blacklisted] }, startMs)
    records.length = 0
    const answer = await maker.firm({ userAddress: blacklisted.toLowerCase(), takerAmount: '1000000' })
    expect(answer.status).toBe(200)
    expect(answer.json).toEqual({ message: 'user is blacklisted' })
    expect(records).toHaveLength(0)
    maker.book().update(1, { blacklist: [] }, startMs)
  })

  it('refuses an unknown pair with 400', async () => {
    const answer = await maker.firm({ makerAsset: DAI.address, takerAsset: USDC.address, takerAmount: '1000000' })
    expect(answer.status).toBe(400)
    expect(answer.json).toEqual({
      error: `unknown pair: no pair of makerAsset ${DAI.address.toLowerCase()} and takerAsset ${USDC.address.toLowerCase()} on chain 1`,
    })
  })

  it('refuses an amount beyond the depth with 400 naming the depth', async () => {
    const answer = await maker.firm({ makerAmount: '12000000000000000000' })
    expect(answer.status).toBe(400)
    expect(answer.json).toEqual({
      error: 'makerAmount 12000000000000000000 exceeds the depth of pair WETH/USDC: at most 11500000000000000000 (raw units of WETH)',
    })
  })

  it('refuses a direction the grid does not quote with 400', async () => {
    const answer = await maker.firm({ makerAsset: WBTC.address, takerAsset: USDC.address, takerAmount: '1000000' })
    expect(answer.status).toBe(400)
    expect(answer.json).toEqual({ error: 'pair WBTC/USDC is not quoted in this direction: the maker does not sell WBTC now' })
  })

  it('refuses an amount whose other side rounds to zero', async () => {
    const answer = await maker.firm({ takerAmount: '1' })
    expect(answer.status).toBe(200)
    const tiny = await maker.firm({ makerAsset: USDC.address, takerAsset: WETH.address, takerAmount: '1000' })
    expect(tiny.status).toBe(400)
    expect(tiny.json).toEqual({ error: 'takerAmount 1000 is too small: the makerAmount rounds to 0' })
  })

  it('refuses a body with both amounts, naming the field', async () => {
    const answer = await maker.firm({ takerAmount: '1000000', makerAmount: '1000' })
    expect(answer.status).toBe(400)
    expect(answer.json).toEqual({ error: 'invalid firm request: makerAmount: expected exactly one of makerAmount and takerAmount' })
  })

  it('refuses malformed JSON with a JSON 400', async () => {
    const answer = await maker.signed('POST', '/maker/1/firm', '{"makerAsset":')
    expect(answer.status).toBe(400)
    expect((answer.json as { error: string }).error).toMatch(/^malformed JSON body: /)
  })

  it('refuses a body that is not application/json with a JSON 415', async () => {
    maker.clock.advance(1)
    const answer = await makerRequest(maker.server().url, {
      method: 'POST',
      path: '/maker/1/firm',
      body: 'makerAsset=x',
      contentType: 'application/x-www-form-urlencoded',
      credentials: testMakerCredentials,
      nowMs: maker.clock.now(),
    })
    expect(answer.status).toBe(415)
    expect(answer.json).toEqual({
      error: 'unsupported content type "application/x-www-form-urlencoded": send the body as application/json',
    })
  })

  it('refuses a body over the limit with a JSON 413', async () => {
    const answer = await maker.signed('POST', '/maker/1/firm', { ...firmBody({ takerAmount: '1' }), padding: 'x'.repeat(20_000) })
    expect(answer.status).toBe(413)
    expect(answer.json).toEqual({ error: 'request body too large: the limit is 16384 bytes' })
  })

  it('refuses with 503 on /prices and /firm while the maker is off, and serves again on new prices', async () => {
    maker.book().setOff('reference price stale')
    const prices = await maker.signed('GET', '/maker/1/prices')
    expect(prices.status).toBe(503)
    expect(prices.json).toEqual({ error: 'maker is off: reference price stale' })
    const firm = await maker.firm({ takerAmount: '1000000' })
    expect(firm.status).toBe(503)
    expect(firm.json).toEqual({ error: 'maker is off: reference price stale' })
    maker.book().update(1, { prices: testMakerPrices }, startMs)
    expect((await maker.signed('GET', '/maker/1/prices')).status).toBe(200)
  })
})

describe('maker server firm hooks', () => {
  let failRecord = false
  let refusal: string | undefined
  const seen: { answeredWhenRecorded?: boolean } = {}
  let answered = false
  const maker = useMakerServer({
    recordFirmQuote: () => {
      seen.answeredWhenRecorded = answered
      if (failRecord) throw new Error('journal is read-only')
    },
    checkFirm: (_request, order) => refusal?.replace('{amount}', order.makerAmount.toString()),
  })

  it('calls recordFirmQuote before the answer leaves', async () => {
    answered = false
    const answer = await maker.firm({ takerAmount: '1000000' })
    answered = true
    expect(answer.status).toBe(200)
    expect(seen.answeredWhenRecorded).toBe(false)
  })

  it('answers 500 without an order when recordFirmQuote throws', async () => {
    failRecord = true
    const answer = await maker.firm({ takerAmount: '1000000' })
    failRecord = false
    expect(answer.status).toBe(500)
    expect(answer.json).toEqual({ error: 'internal error: the firm quote could not be recorded; no order was issued' })
    expect(answer.text).not.toContain('nonceAndMeta')
  })

  it('refuses with 400 and the text checkFirm returns', async () => {
    refusal = 'inventory: makerAmount {amount} exceeds the free WETH balance'
    const answer = await maker.firm({ takerAmount: '1000000' })
    refusal = undefined
    expect(answer.status).toBe(400)
    expect((answer.json as { error: string }).error).toMatch(/^inventory: makerAmount \d+ exceeds the free WETH balance$/)
  })
})

describe('maker server base path and chains', () => {
  const clock = new ManualClock(startMs)
  let server: MakerServer
  beforeAll(async () => {
    const book = createTestMakerBook([1, 8453], startMs)
    server = await startTestMakerServer(book, clock, {
      chains: [
        { chainId: 1, basePath: '/mm/eth', rfq: testRfqAddress },
        { chainId: 8453, basePath: '/mm/base', rfq: '0x0000000000000000000000000000000000000b05' as Address },
      ],
    })
  })
  afterAll(() => server.close())

  it('lists one endpoint per chain with its base path', () => {
    expect(server.endpoints).toEqual([
      { chainId: 1, url: `${server.url}/mm/eth` },
      { chainId: 8453, url: `${server.url}/mm/base` },
    ])
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect(server.maker).toBe(testMakerAccount.address)
  })

  it('accepts a signature over the path with its base path prefix', async () => {
    const answer = await makerRequest(server.url, { path: '/mm/base/pairs', credentials: testMakerCredentials, nowMs: clock.now() })
    expect(answer.status).toBe(200)
  })

  it('refuses a signature over the path without its base path prefix', async () => {
    const headers = makerAuthHeaders(testMakerCredentials, { nowMs: clock.now(), method: 'GET', path: '/pairs' })
    const answer = await makerRequest(server.url, { path: '/mm/base/pairs', headers })
    expect(answer.status).toBe(401)
    expect((answer.json as { error: string }).error).toContain(`"${headers['x-auth-timestamp']}GET/mm/base/pairs"`)
  })

  it('signs firm orders under the RFQ contract of the chain asked', async () => {
    const answer = await makerRequest(server.url, {
      method: 'POST',
      path: '/mm/base/firm',
      body: firmBody({ takerAmount: '1000000' }),
      credentials: testMakerCredentials,
      nowMs: clock.now(),
    })
    const { signature, ...unsigned } = firmOrderSchema.parse((answer.json as { order: unknown }).order)
    const typedData = buildRfqOrderTypedData(
      { ...unsigned, expiry: BigInt(unsigned.expiry) },
      { chainId: 8453, verifyingContract: '0x0000000000000000000000000000000000000b05' },
    )
    expect(await recoverTypedDataAddress({ ...typedData, signature: signature as Hex })).toBe(testMakerAccount.address)
  })
})

describe('maker server IP allowlist', () => {
  const clock = new ManualClock(startMs)
  const servers: MakerServer[] = []
  const start = async (allowIps: string[]) => {
    const server = await startTestMakerServer(createTestMakerBook([1], startMs), clock, { allowIps })
    servers.push(server)
    return server
  }
  afterAll(() => Promise.all(servers.map((server) => server.close())))

  it('refuses another source address with a JSON 403 before authentication', async () => {
    const server = await start(['10.1.2.3', '2001:db8::1'])
    const answer = await makerRequest(server.url, { path: '/maker/1/prices' })
    expect(answer.status).toBe(403)
    expect(answer.json).toEqual({ error: 'source address 127.0.0.1 is not allowed' })
  })

  it('serves an allowed source address, in plain or IPv4-mapped form', async () => {
    for (const allowed of ['127.0.0.1', '::ffff:127.0.0.1']) {
      const server = await start([allowed])
      const answer = await makerRequest(server.url, { path: '/maker/1/prices', credentials: testMakerCredentials, nowMs: clock.now() })
      expect(answer.status).toBe(200)
    }
  })

  it('refuses an allowlist entry that is not an IP', async () => {
    await expect(start(['localhost'])).rejects.toThrow('"localhost" is not an IPv4 or IPv6 address')
  })
})

describe('maker server limits', () => {
  const clock = new ManualClock(startMs)
  let server: MakerServer
  beforeAll(async () => {
    server = await startTestMakerServer(createTestMakerBook([1], startMs), clock, { requestTimeoutMs: 500, auth: undefined })
  })
  afterAll(() => server.close())

  it('answers a request that never completes with a JSON 408', async () => {
    const port = Number(new URL(server.url).port)
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => socket.write('GET /maker/1/prices HTTP/1.1\r\nHost: x\r\n'))
      let text = ''
      socket.on('data', (chunk) => {
        text += chunk.toString()
      })
      socket.on('close', () => resolve(text))
      socket.on('error', reject)
    })
    expect(raw).toMatch(/^HTTP\/1\.1 408 /)
    expect(JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4))).toEqual({ error: 'request timeout: the request was not received in time' })
  })

  it('serves without authentication when no auth is configured', async () => {
    expect((await makerRequest(server.url, { path: '/maker/1/tokens' })).status).toBe(200)
  })

  it('refuses a firm expiry below 120 s at start', async () => {
    await expect(startTestMakerServer(createTestMakerBook([1], startMs), clock, { firmExpirySeconds: 60 })).rejects.toThrow(
      'firmExpirySeconds must be an integer of at least 120, received 60',
    )
  })
})

describe('createRfqOrderDigest', () => {
  it('equals hashRfqOrder for any order and domain', () => {
    fc.assert(
      fc.property(
        fc.record({
          nonceAndMeta: uintArbitrary(256),
          expiry: uintArbitrary(128),
          makerAsset: addressArbitrary,
          takerAsset: addressArbitrary,
          maker: addressArbitrary,
          taker: addressArbitrary,
          makerAmount: uintArbitrary(256),
          takerAmount: uintArbitrary(256),
        }),
        fc.integer({ min: 1, max: 2 ** 31 }),
        addressArbitrary,
        (order, chainId, verifyingContract) => {
          expect(createRfqOrderDigest({ chainId, verifyingContract })(order)).toBe(hashRfqOrder(order, { chainId, verifyingContract }))
        },
      ),
    )
  })

  it('refuses an expiry beyond uint128', () => {
    const digest = createRfqOrderDigest({ chainId: 1, verifyingContract: testRfqAddress })
    const order = {
      nonceAndMeta: 1n,
      expiry: 1n << 128n,
      makerAsset: WETH.address,
      takerAsset: USDC.address,
      maker: user,
      taker: user,
      makerAmount: 1n,
      takerAmount: 1n,
    }
    expect(() => digest(order)).toThrow('RFQ order expiry: 340282366920938463463374607431768211456 is not a uint128')
  })
})
