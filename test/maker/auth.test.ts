import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createLogger } from '../../src/log/logger.js'
import type { MakerServer } from '../../src/maker/server/maker-server.js'
import { ReplayCache } from '../../src/maker/server/replay-cache.js'
import { type MakerCredentials, makerAuthHeaders, signMakerRequest } from '../../src/protocol/maker-auth.js'
import { ManualClock } from '../../src/time/clock.js'
import { createTestMakerBook, firmBody, makerRequest, startTestMakerServer, testMakerCredentials } from '../helpers/maker-server.js'

const startMs = 1_700_000_000_000
const otherCredentials: MakerCredentials = { domain: 'second.test', accessKey: 'second-access-4410', secret: 'second-secret-9921' }

describe('maker server authentication', () => {
  const clock = new ManualClock(startMs)
  const logLines: string[] = []
  let server: MakerServer
  beforeAll(async () => {
    const logger = createLogger({ level: 'trace', destination: { write: (line: string) => logLines.push(line) } })
    server = await startTestMakerServer(createTestMakerBook([1], startMs), clock, {
      auth: { credentials: [testMakerCredentials, otherCredentials] },
      logger,
    })
  })
  afterAll(() => server.close())

  /** Headers signed now (a millisecond after the previous request, so that no two are the same). */
  const sign = (overrides: { path?: string; method?: string; body?: string; credentials?: MakerCredentials; skewMs?: number } = {}) => {
    clock.advance(1)
    return makerAuthHeaders(overrides.credentials ?? testMakerCredentials, {
      nowMs: clock.now() + (overrides.skewMs ?? 0),
      method: overrides.method ?? 'GET',
      path: overrides.path ?? '/maker/1/prices',
      body: overrides.body,
    })
  }
  const get = (headers: Record<string, string | string[]>, path = '/maker/1/prices') => makerRequest(server.url, { path, headers })
  const errorOf = (answer: { json: unknown }) => (answer.json as { error?: unknown }).error

  it('serves a request signed with valid credentials', async () => {
    expect((await get(sign())).status).toBe(200)
  })

  it('serves a second configured domain with its own credentials', async () => {
    expect((await get(sign({ credentials: otherCredentials }))).status).toBe(200)
  })

  it('names every missing header', async () => {
    const answer = await get({})
    expect(answer.status).toBe(401)
    expect(answer.json).toEqual({
      error: 'missing authentication headers X-AUTH-DOMAIN, X-AUTH-ACCESS-KEY, X-AUTH-TIMESTAMP, X-AUTH-SIGNATURE',
    })
  })

  it.each([
    ['x-auth-domain', 'X-AUTH-DOMAIN'],
    ['x-auth-access-key', 'X-AUTH-ACCESS-KEY'],
    ['x-auth-timestamp', 'X-AUTH-TIMESTAMP'],
    ['x-auth-signature', 'X-AUTH-SIGNATURE'],
  ])('names the one missing header %s', async (name, label) => {
    const headers: Record<string, string> = sign()
    delete headers[name]
    const answer = await get(headers)
    expect(answer.status).toBe(401)
    expect(answer.json).toEqual({ error: `missing authentication header ${label}` })
  })

  it('refuses a header sent twice', async () => {
    const headers = sign()
    const answer = await get({ ...headers, 'x-auth-timestamp': [headers['x-auth-timestamp'], headers['x-auth-timestamp']] })
    expect(answer.status).toBe(401)
    expect(answer.json).toEqual({ error: 'header X-AUTH-TIMESTAMP was sent 2 times; send it once' })
  })

  it('refuses an unknown domain', async () => {
    const answer = await get(sign({ credentials: { ...testMakerCredentials, domain: 'stranger.test' } }))
    expect(answer.status).toBe(401)
    expect(answer.json).toEqual({ error: 'unknown X-AUTH-DOMAIN "stranger.test"' })
  })

  it('refuses a wrong access key without echoing it, in the answer or the logs', async () => {
    const wrongKey = 'wrong-access-key-31337'
    const answer = await get(sign({ credentials: { ...testMakerCredentials, accessKey: wrongKey } }))
    expect(answer.status).toBe(401)
    expect(answer.json).toEqual({ error: 'wrong X-AUTH-ACCESS-KEY for X-AUTH-DOMAIN "service.test"' })
    expect(answer.text).not.toContain(wrongKey)
    expect(logLines.join('')).not.toContain(wrongKey)
  })

  it('refuses another domain access key for this domain', async () => {
    const answer = await get(sign({ credentials: { ...testMakerCredentials, accessKey: otherCredentials.accessKey } }))
    expect(errorOf(answer)).toBe('wrong X-AUTH-ACCESS-KEY for X-AUTH-DOMAIN "service.test"')
  })

  it.each(['soon', '1.7e12', '-1700000000000', '1700000000000.5', '0x18bcfe56800'])(
    'refuses the timestamp %j as not integer milliseconds',
    async (timestamp) => {
      const answer = await get({ ...sign(), 'x-auth-timestamp': timestamp })
      expect(answer.status).toBe(401)
      expect(answer.json).toEqual({
        error: `X-AUTH-TIMESTAMP must be unix time in milliseconds as a decimal integer, received ${JSON.stringify(timestamp)}`,
      })
    },
  )

  it('accepts a timestamp exactly at the edges of the ±30 s window', async () => {
    expect((await get(sign({ skewMs: 30_000 }))).status).toBe(200)
    expect((await get(sign({ skewMs: -30_000 }))).status).toBe(200)
  })

  it('refuses a timestamp 1 ms beyond the window either way, naming the skew', async () => {
    const ahead = sign({ skewMs: 30_001 })
    const aheadAnswer = await get(ahead)
    expect(aheadAnswer.status).toBe(401)
    expect(aheadAnswer.json).toEqual({
      error: `X-AUTH-TIMESTAMP ${ahead['x-auth-timestamp']} is 30001 ms ahead of the maker's clock (tolerance ±30000 ms)`,
    })
    const behind = sign({ skewMs: -30_001 })
    expect(errorOf(await get(behind))).toBe(
      `X-AUTH-TIMESTAMP ${behind['x-auth-timestamp']} is 30001 ms behind the maker's clock (tolerance ±30000 ms)`,
    )
  })

  it('refuses a request that waited beyond the window after signing', async () => {
    const headers = sign()
    clock.advance(30_001)
    expect(errorOf(await get(headers))).toMatch(/is 30001 ms behind the maker's clock/)
  })

  it('hints at seconds when the timestamp is in seconds', async () => {
    const seconds = String(Math.floor(clock.now() / 1000))
    clock.advance(1)
    const headers = makerAuthHeaders(testMakerCredentials, { nowMs: 0, method: 'GET', path: '/maker/1/prices' })
    const signature = signMakerRequest(testMakerCredentials.secret, { timestamp: seconds, method: 'GET', path: '/maker/1/prices' })
    const answer = await get({ ...headers, 'x-auth-timestamp': seconds, 'x-auth-signature': signature })
    expect(errorOf(answer)).toMatch(/ms behind the maker's clock \(tolerance ±30000 ms\); it looks like seconds, send milliseconds$/)
  })

  it('refuses a signature that is not 64 lowercase hex characters', async () => {
    const headers = sign()
    const short = await get({ ...headers, 'x-auth-signature': headers['x-auth-signature'].slice(0, 63) })
    expect(short.status).toBe(401)
    expect(short.json).toEqual({ error: 'X-AUTH-SIGNATURE must be 64 lowercase hex characters (HMAC-SHA256), received 63 characters' })
    const upper = await get({ ...headers, 'x-auth-signature': headers['x-auth-signature'].toUpperCase() })
    expect(upper.json).toEqual({ error: 'X-AUTH-SIGNATURE must be 64 lowercase hex characters (HMAC-SHA256), received uppercase hex' })
  })

  it('refuses a signature made with a wrong secret without echoing it, naming the signed payload', async () => {
    const wrongSecret = 'wrong-secret-8d8d8d'
    const headers = sign({ credentials: { ...testMakerCredentials, secret: wrongSecret } })
    const answer = await get(headers)
    expect(answer.status).toBe(401)
    expect(answer.json).toEqual({
      error: `X-AUTH-SIGNATURE does not match: expected the lowercase hex HMAC-SHA256, keyed with the secret key of X-AUTH-DOMAIN "service.test", of "${headers['x-auth-timestamp']}GET/maker/1/prices" followed by the body as sent (0 bytes)`,
    })
    expect(answer.text).not.toContain(wrongSecret)
    expect(answer.text).not.toContain(testMakerCredentials.secret)
    expect(logLines.join('')).not.toContain(wrongSecret)
  })

  it('refuses a signature over another path or method', async () => {
    expect((await get(sign({ path: '/maker/1/tokens' }))).status).toBe(401)
    expect(errorOf(await get(sign({ method: 'POST' })))).toMatch(/^X-AUTH-SIGNATURE does not match/)
  })

  it('refuses a replayed request within the window and serves the same request signed again', async () => {
    const headers = sign()
    expect((await get(headers)).status).toBe(200)
    const replay = await get(headers)
    expect(replay.status).toBe(401)
    expect(replay.json).toEqual({ error: 'replayed request: this X-AUTH-SIGNATURE was already accepted within the last 30000 ms' })
    expect((await get(sign())).status).toBe(200)
  })

  it('refuses a replay after the window as stale', async () => {
    const headers = sign()
    expect((await get(headers)).status).toBe(200)
    clock.advance(30_001)
    expect(errorOf(await get(headers))).toMatch(/ms behind the maker's clock/)
  })

  it('verifies the body bytes exactly as sent, before parsing them', async () => {
    const body = JSON.stringify(firmBody({ takerAmount: '1000000' }), null, 2)
    const headers = sign({ method: 'POST', path: '/maker/1/firm', body })
    const spaced = await makerRequest(server.url, { method: 'POST', path: '/maker/1/firm', body, headers })
    expect(spaced.status).toBe(200)
    const reformatted = sign({ method: 'POST', path: '/maker/1/firm', body })
    const changed = await makerRequest(server.url, {
      method: 'POST',
      path: '/maker/1/firm',
      body: JSON.stringify(JSON.parse(body)),
      headers: reformatted,
    })
    expect(changed.status).toBe(401)
    expect(errorOf(changed)).toMatch(/followed by the body as sent \(\d+ bytes\)$/)
  })

  it('authenticates before refusing malformed JSON', async () => {
    const unsigned = await makerRequest(server.url, { method: 'POST', path: '/maker/1/firm', body: '{oops' })
    expect(unsigned.status).toBe(401)
    const signed = await makerRequest(server.url, {
      method: 'POST',
      path: '/maker/1/firm',
      body: '{oops',
      headers: sign({ method: 'POST', path: '/maker/1/firm', body: '{oops' }),
    })
    expect(signed.status).toBe(400)
    expect(errorOf(signed)).toMatch(/^malformed JSON body/)
  })

  it('never logs a credential or a signature', async () => {
    const headers = sign()
    await get(headers)
    await get({ ...headers, 'x-auth-access-key': 'nope' })
    const logs = logLines.join('')
    expect(logs).toContain('maker request refused')
    for (const secret of [
      testMakerCredentials.secret,
      testMakerCredentials.accessKey,
      otherCredentials.secret,
      headers['x-auth-signature'],
    ]) {
      expect(logs).not.toContain(secret)
    }
  })
})

describe('maker server authentication tolerance', () => {
  const clock = new ManualClock(startMs)
  let server: MakerServer
  beforeAll(async () => {
    server = await startTestMakerServer(createTestMakerBook([1], startMs), clock, {
      auth: { credentials: [testMakerCredentials], toleranceMs: 5_000 },
    })
  })
  afterAll(() => server.close())

  it('uses the configured tolerance', async () => {
    const at = (nowMs: number) => makerRequest(server.url, { path: '/maker/1/prices', credentials: testMakerCredentials, nowMs })
    expect((await at(startMs - 5_000)).status).toBe(200)
    expect((await at(startMs - 5_001)).json).toEqual({
      error: `X-AUTH-TIMESTAMP ${startMs - 5_001} is 5001 ms behind the maker's clock (tolerance ±5000 ms)`,
    })
  })
})

describe('maker server on a sandbox clock running ahead of the wall clock', () => {
  // A sandbox at speed 60 is hours ahead of real time after a while: firm expiry must follow its chains, while the
  // service stamps its requests with the wall clock.
  const chainClock = new ManualClock(startMs + 6 * 3_600_000)
  const wallClock = new ManualClock(startMs)
  let server: MakerServer
  beforeAll(async () => {
    server = await startTestMakerServer(createTestMakerBook([1], startMs), chainClock, { authClock: wallClock })
  })
  afterAll(() => server.close())

  it('checks timestamps on the wall clock and sets firm expiry on the chain clock', async () => {
    const answer = await makerRequest(server.url, {
      method: 'POST',
      path: '/maker/1/firm',
      body: firmBody({ takerAmount: '1000000' }),
      credentials: testMakerCredentials,
      nowMs: wallClock.now(),
    })
    expect(answer.status).toBe(200)
    const { order } = answer.json as { order: { expiry: number } }
    expect(order.expiry).toBe(Math.floor(chainClock.now() / 1000) + 180)
    const stampedOnChainClock = await makerRequest(server.url, {
      path: '/maker/1/prices',
      credentials: testMakerCredentials,
      nowMs: chainClock.now(),
    })
    expect(stampedOnChainClock.status).toBe(401)
  })
})

describe('ReplayCache', () => {
  it('forgets a key once its timestamp has left the window', () => {
    const cache = new ReplayCache({ toleranceMs: 1_000 })
    expect(cache.admit('a', 10_000, 10_000)).toBe('fresh')
    expect(cache.admit('a', 10_000, 11_000)).toBe('replayed')
    expect(cache.admit('b', 12_000, 12_000)).toBe('fresh')
    expect(cache.size).toBe(1)
  })

  it('stays bounded under a flood, refusing new keys until a sweep frees room', () => {
    const cache = new ReplayCache({ toleranceMs: 1_000, maxEntries: 100 })
    for (let index = 0; index < 100; index += 1) expect(cache.admit(`k${index}`, 5_000, 5_000)).toBe('fresh')
    expect(cache.admit('overflow', 5_000, 5_000)).toBe('full')
    expect(cache.size).toBe(100)
    expect(cache.admit('later', 6_500, 6_500)).toBe('fresh')
    expect(cache.size).toBe(1)
  })
})
