import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createRandom } from '../../src/domain/seeded-random.js'
import { createLogger } from '../../src/log/logger.js'
import { createSandboxApp } from '../../src/sandbox/server/app.js'
import { FaultInjector } from '../../src/sandbox/server/faults.js'
import { resolveSandboxServerLimits } from '../../src/sandbox/server/server-limits.js'
import { createScaledClock } from '../../src/time/clock.js'
import { exchangeRaw, parseRawAnswers } from '../helpers/raw-http.js'

// The sandbox's HTTP server alone (no chain, no desk but a slow one): the limits live in the server, not in the desks.
// Two servers: a short request timeout for the stalled request, a long one that leaves time to read a large body away.
const shortTimeoutMs = 300
const longTimeoutMs = 10_000
const bodyLimitBytes = 1_024
const guardMs = 15_000

describe('sandbox server limits', () => {
  const logLines: string[] = []
  const apps: FastifyInstance[] = []
  const urls = { short: '', long: '' }
  const start = (requestTimeoutMs: number) => {
    const logger = createLogger({ level: 'warn', destination: { write: (line: string) => logLines.push(line) } })
    const slowDesk = {
      name: 'slow',
      register: (server: FastifyInstance) =>
        server.post('/slow', async (request) => {
          await new Promise((resolve) => setTimeout(resolve, 3 * requestTimeoutMs))
          return { received: request.body }
        }),
    }
    const app = createSandboxApp({
      venue: { logger, clock: createScaledClock({ speed: 1 }) },
      desks: [slowDesk],
      faults: new FaultInjector(createRandom(1)),
      limits: { requestTimeoutMs, bodyLimitBytes },
    })
    apps.push(app)
    return app.listen({ host: '127.0.0.1', port: 0 })
  }
  beforeAll(async () => {
    urls.short = await start(shortTimeoutMs)
    urls.long = await start(longTimeoutMs)
  })
  afterAll(() => Promise.all(apps.map((app) => app.close())))

  it('answers a request whose Content-Length overstates its body with a JSON 408 and closes the connection', async () => {
    const head = 'POST /_sandbox/faults HTTP/1.1\r\nHost: sandbox\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n'
    const exchange = await exchangeRaw(urls.short, [head, '{"route":"'], { guardMs })
    expect(exchange).toMatchObject({ writeError: undefined, closed: true })
    expect(parseRawAnswers(exchange.text)).toEqual([
      expect.objectContaining({
        status: 408,
        json: { error: `Request timeout: the request did not arrive in full within ${shortTimeoutMs} ms` },
      }),
    ])
  })

  it('answers a body over the limit with a JSON 413 that a client writing its whole body first can read', async () => {
    const body = Buffer.alloc(16 * 1024 * 1024, 'x')
    const head = `POST /_sandbox/faults HTTP/1.1\r\nHost: sandbox\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`
    // A second request on the same connection: the rest of the refused body was read away, not left in the stream.
    const next = 'GET /_sandbox/time HTTP/1.1\r\nHost: sandbox\r\nConnection: close\r\n\r\n'
    const exchange = await exchangeRaw(urls.long, [head, body, next], { guardMs })
    expect(exchange).toMatchObject({ writeError: undefined, closed: true })
    const [refused, served, ...others] = parseRawAnswers(exchange.text)
    expect(refused).toMatchObject({
      status: 413,
      json: { error: `Payload too large: the request body is over the limit of ${bodyLimitBytes} bytes` },
    })
    expect(refused?.headers['content-type']).toMatch(/^application\/json/)
    expect(served).toMatchObject({ status: 200, json: { speed: 1 } })
    expect(others).toEqual([])
  })

  it('answers a chunked body over the limit with a JSON 413 too', async () => {
    const chunk = 'x'.repeat(64 * 1024)
    const chunks = Array.from({ length: 64 }, () => `${chunk.length.toString(16)}\r\n${chunk}\r\n`)
    const head = 'POST /_sandbox/faults HTTP/1.1\r\nHost: sandbox\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n'
    const next = 'GET /_sandbox/time HTTP/1.1\r\nHost: sandbox\r\nConnection: close\r\n\r\n'
    const exchange = await exchangeRaw(urls.long, [head, ...chunks, '0\r\n\r\n', next], { guardMs })
    expect(exchange).toMatchObject({ writeError: undefined, closed: true })
    expect(parseRawAnswers(exchange.text).map(({ status }) => status)).toEqual([413, 200])
  })

  it('closes without a second answer a refused body that then stalls past the request timeout', async () => {
    const head = 'POST /_sandbox/faults HTTP/1.1\r\nHost: sandbox\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n'
    const exchange = await exchangeRaw(urls.short, [head, 'x'.repeat(10)], { guardMs })
    expect(exchange).toMatchObject({ writeError: undefined, closed: true })
    expect(parseRawAnswers(exchange.text).map(({ status }) => status)).toEqual([413])
  })

  it('answers a slow handler after the request timeout: the timeout counts receiving the request only', async () => {
    const body = JSON.stringify({ size: 'ok' })
    const head = `POST /slow HTTP/1.1\r\nHost: sandbox\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`
    const exchange = await exchangeRaw(urls.short, [head, body], { guardMs })
    expect(parseRawAnswers(exchange.text)).toEqual([expect.objectContaining({ status: 200, json: { received: { size: 'ok' } } })])
  })

  it('logs no handler failure for the refused and timed-out requests', () => {
    expect(logLines).toEqual([])
  })
})

describe('resolveSandboxServerLimits', () => {
  it('fills the defaults, the headers timeout following the request timeout', () => {
    expect(resolveSandboxServerLimits({ requestTimeoutMs: 500 })).toEqual({
      bodyLimitBytes: 5 * 1024 * 1024,
      requestTimeoutMs: 500,
      headersTimeoutMs: 500,
      keepAliveTimeoutMs: 72_000,
    })
  })

  it('refuses a limit that is not a positive integer, naming it', () => {
    expect(() => resolveSandboxServerLimits({ bodyLimitBytes: 0 })).toThrow('bodyLimitBytes must be a positive integer, received 0')
    expect(() => resolveSandboxServerLimits({ requestTimeoutMs: 1.5 })).toThrow('requestTimeoutMs must be a positive integer, received 1.5')
  })

  it('refuses a headers timeout longer than the request timeout', () => {
    expect(() => resolveSandboxServerLimits({ requestTimeoutMs: 1_000, headersTimeoutMs: 2_000 })).toThrow(
      'headersTimeoutMs (2000) must not exceed requestTimeoutMs (1000)',
    )
  })
})
