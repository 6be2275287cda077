import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { MakerServer } from '../../src/maker/server/maker-server.js'
import { makerAuthHeaders } from '../../src/protocol/maker-auth.js'
import { ManualClock } from '../../src/time/clock.js'
import {
  createTestMakerBook,
  firmBody,
  type MakerAnswer,
  type MakerRequestOptions,
  makerRequest,
  startTestMakerServer,
  testMakerCredentials,
  testMakerTokens,
} from '../helpers/maker-server.js'

// A seeded barrage of hostile requests: every one must get a 4xx with a JSON `{ error }`, and the server must keep
// serving valid signed requests during and after it.

const startMs = 1_700_000_000_000
const hostileCount = 1_200
const validEvery = 50
const concurrency = 16

/** mulberry32: a small seeded generator, so a failure replays. */
function seededRandom(seed: number) {
  let state = seed >>> 0
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296
  }
  return {
    next,
    integer: (max: number) => Math.floor(next() * max),
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T,
    hex: (length: number) => Array.from({ length }, () => '0123456789abcdef'[Math.floor(next() * 16)]).join(''),
  }
}

type Hostile = { kind: string; options: MakerRequestOptions }

describe('maker server under hostile requests', () => {
  const clock = new ManualClock(startMs)
  let server: MakerServer
  const accepted: MakerRequestOptions[] = []

  beforeAll(async () => {
    server = await startTestMakerServer(createTestMakerBook([1], startMs), clock)
  })
  afterAll(() => server.close())

  /** Headers signed as the service would, one millisecond after the last. */
  const signed = (method: string, path: string, body?: string) => {
    clock.advance(1)
    const queryAt = path.indexOf('?')
    return makerAuthHeaders(testMakerCredentials, {
      nowMs: clock.now(),
      method,
      path: queryAt === -1 ? path : path.slice(0, queryAt),
      query: queryAt === -1 ? '' : path.slice(queryAt),
      body,
    })
  }
  const validRequest = (index: number): MakerRequestOptions => {
    if (index % 2 === 0) return { path: '/maker/1/prices', headers: signed('GET', '/maker/1/prices') }
    const body = JSON.stringify(firmBody({ takerAmount: String(1_000_000 + index) }))
    return { method: 'POST', path: '/maker/1/firm', body, headers: signed('POST', '/maker/1/firm', body) }
  }

  function hostile(random: ReturnType<typeof seededRandom>): Hostile {
    const paths = ['/maker/1/prices', '/maker/1/tokens', '/maker/1/pairs', '/maker/1/blacklist']
    const firm = (fields: Record<string, unknown>) => JSON.stringify({ ...firmBody({}), ...fields })
    const signedFirm = (kind: string, body: string): Hostile => ({
      kind,
      options: { method: 'POST', path: '/maker/1/firm', body, headers: signed('POST', '/maker/1/firm', body) },
    })
    const headerNames = ['x-auth-domain', 'x-auth-access-key', 'x-auth-timestamp', 'x-auth-signature'] as const
    const choice = random.integer(18)
    switch (choice) {
      case 0: {
        const headers: Record<string, string> = signed('GET', random.pick(paths))
        for (const name of headerNames) if (random.next() < 0.5) delete headers[name]
        if (Object.keys(headers).length === 4) delete headers[random.pick(headerNames)]
        return { kind: 'missing header', options: { path: random.pick(paths), headers } }
      }
      case 1: {
        const path = random.pick(paths)
        const headers = signed('GET', path)
        const name = random.pick(['x-auth-domain', 'x-auth-access-key'] as const)
        return { kind: 'wrong credential', options: { path, headers: { ...headers, [name]: random.hex(1 + random.integer(40)) } } }
      }
      case 2: {
        const path = random.pick(paths)
        const headers = signed('GET', path)
        const name = random.pick(headerNames)
        return {
          kind: 'duplicated header',
          options: { path, headers: { ...headers, [name]: [headers[name], random.pick([headers[name], 'x'])] } },
        }
      }
      case 3: {
        const path = random.pick(paths)
        const skew = (30_001 + random.integer(10_000_000)) * random.pick([1, -1])
        clock.advance(1)
        const headers = makerAuthHeaders(testMakerCredentials, { nowMs: clock.now() + skew, method: 'GET', path })
        return { kind: 'stale or future timestamp', options: { path, headers } }
      }
      case 4: {
        const path = random.pick(paths)
        const timestamp = random.pick(['', 'now', '1.7e12', '-5', '0x1', '+1700000000000', `${clock.now()}.0`, '9'.repeat(40), ' ', 'null'])
        return { kind: 'non-numeric timestamp', options: { path, headers: { ...signed('GET', path), 'x-auth-timestamp': timestamp } } }
      }
      case 5: {
        const path = random.pick(paths)
        const headers = signed('GET', path)
        const good = headers['x-auth-signature']
        const signature = random.pick([
          random.hex(64),
          good.toUpperCase(),
          good.slice(1),
          `${good}0`,
          `0x${good}`,
          good.replace(/^./, (c) => (c === 'a' ? 'b' : 'a')),
          'zz'.repeat(32),
        ])
        return { kind: 'bad signature', options: { path, headers: { ...headers, 'x-auth-signature': signature } } }
      }
      case 6: {
        const previous = accepted.length > 0 ? random.pick(accepted) : undefined
        if (previous === undefined) return { kind: 'replay (none yet: unsigned)', options: { path: '/maker/1/prices' } }
        return { kind: 'replay', options: previous }
      }
      case 7: {
        const path = random.pick([...paths, '/maker/1/firm', '/maker/1/ws'])
        const method = random.pick(['PUT', 'DELETE', 'PATCH', 'OPTIONS', path === '/maker/1/firm' ? 'GET' : 'POST'])
        return { kind: 'wrong method', options: { method, path, headers: signed(method, path) } }
      }
      case 8: {
        const path = random.pick([
          '/',
          '/maker/2/prices',
          '/maker/1/prices/',
          '/maker/1/PRICES',
          `/maker/1/${random.hex(8)}`,
          '/maker/1/../1/prices',
          '/maker/1/%zz',
          `/${'a'.repeat(2_000 + random.integer(4_000))}`,
          '/maker/1/prices%00',
        ])
        return { kind: 'unknown path', options: { path, headers: signed('GET', path) } }
      }
      case 9: {
        const body = random.pick([
          '{',
          '[',
          'nul',
          '{"makerAsset":}',
          '{"a":1,}',
          '\u0000\u0001',
          "{'a':1}",
          '',
          ' ',
          randomBytes(32).toString('latin1'),
        ])
        return signedFirm('malformed JSON', body)
      }
      case 10: {
        const body = firm({ padding: 'x'.repeat(16_384 + random.integer(50_000)) })
        return random.next() < 0.5
          ? signedFirm('oversized body', body)
          : { kind: 'oversized body, unsigned', options: { method: 'POST', path: '/maker/1/firm', body } }
      }
      case 11: {
        const depth = 1_000 + random.integer(6_000)
        const body = random.next() < 0.5 ? `${'['.repeat(depth)}${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`
        return signedFirm('deep nesting', body.length > 16_000 ? body.slice(0, 16_000) : body)
      }
      case 12: {
        const field = random.pick(['makerAsset', 'takerAsset', 'takerAmount', 'userAddress', 'takerAddress'])
        const value = random.pick([1, -1, true, null, [], {}, 1e21, '0x', 'WETH'])
        return signedFirm('wrong type', firm({ takerAmount: '1000000', [field]: value }))
      }
      case 13: {
        const amount = random.pick(['0', '-1', (1n << 256n).toString(), '1.5', '0x10', '1e18', ' 1', '', '٣'])
        return signedFirm('impossible amount', firm({ [random.pick(['takerAmount', 'makerAmount'])]: amount }))
      }
      case 14:
        return signedFirm('both or neither amount', random.next() < 0.5 ? firm({ takerAmount: '1', makerAmount: '1' }) : firm({}))
      case 15: {
        const unknown = `0x${random.hex(40)}`
        const body = random.pick([
          firm({ makerAsset: unknown, takerAmount: '1000000' }),
          firm({ takerAsset: unknown, takerAmount: '1000000' }),
          firm({ takerAsset: testMakerTokens.WETH.address, takerAmount: '1000000' }),
          firm({ makerAsset: testMakerTokens.DAI.address, takerAmount: '1000000' }),
          firm({ makerAmount: '9'.repeat(30) }),
        ])
        return signedFirm('unknown token, same asset or beyond depth', body)
      }
      case 16: {
        const body = firm({ takerAmount: '1000000' })
        const contentType = random.pick([
          'text/plain',
          'application/x-www-form-urlencoded',
          'multipart/form-data; boundary=x',
          'application/jsonx',
        ])
        return {
          kind: 'wrong content type',
          options: { method: 'POST', path: '/maker/1/firm', body, contentType, headers: signed('POST', '/maker/1/firm', body) },
        }
      }
      default: {
        const path = `${random.pick(paths)}?${random.pick(['network=1', '', 'a=%zz', 'x'.repeat(100)])}`
        return { kind: 'query string', options: { path, headers: signed('GET', path) } }
      }
    }
  }

  it('answers every hostile request with a JSON 4xx and keeps serving valid ones', { timeout: 30_000 }, async () => {
    const random = seededRandom(20_241_121)
    const failures: string[] = []
    const kinds = new Map<string, number>()
    let validServed = 0
    const check = (kind: string, options: MakerRequestOptions, answer: MakerAnswer) => {
      kinds.set(kind, (kinds.get(kind) ?? 0) + 1)
      const error = (answer.json as { error?: unknown } | undefined)?.error
      if (answer.status < 400 || answer.status >= 500 || typeof error !== 'string') {
        failures.push(`${kind}: ${options.method ?? 'GET'} ${options.path.slice(0, 60)} → ${answer.status} ${answer.text.slice(0, 120)}`)
      }
    }
    for (let start = 0; start < hostileCount; start += concurrency) {
      const batch: Promise<void>[] = []
      for (let index = start; index < Math.min(start + concurrency, hostileCount); index += 1) {
        if (index % validEvery === 0) {
          const options = validRequest(index / validEvery)
          batch.push(
            makerRequest(server.url, options).then((answer) => {
              expect(answer.status, `valid request ${options.path} during the barrage: ${answer.text}`).toBe(200)
              validServed += 1
              accepted.push(options)
            }),
          )
        }
        const { kind, options } = hostile(random)
        batch.push(makerRequest(server.url, options).then((answer) => check(kind, options, answer)))
      }
      await Promise.all(batch)
    }
    expect(failures).toEqual([])
    expect([...kinds.values()].reduce((sum, count) => sum + count, 0)).toBe(hostileCount)
    expect(kinds.size).toBeGreaterThanOrEqual(17)
    expect(validServed).toBe(hostileCount / validEvery)

    for (const index of [1, 2]) expect((await makerRequest(server.url, validRequest(index))).status).toBe(200)
  })
})
