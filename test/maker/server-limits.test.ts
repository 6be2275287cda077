import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import type { MakerServer } from '../../src/maker/server/maker-server.js'
import { ManualClock } from '../../src/time/clock.js'
import { createTestMakerBook, startTestMakerServer } from '../helpers/maker-server.js'
import { exchangeRaw, parseRawAnswers } from '../helpers/raw-http.js'

const startMs = 1_700_000_000_000
const requestTimeoutMs = 300
const patientTimeoutMs = 10_000
const guardMs = 15_000

// Two servers: a short request timeout for the stalled request, a long one that leaves time to read a large body away.
describe('maker server limits', () => {
  let server: MakerServer
  let patientServer: MakerServer
  beforeAll(async () => {
    const start = (timeoutMs: number) =>
      startTestMakerServer(createTestMakerBook([1], startMs), new ManualClock(startMs), { requestTimeoutMs: timeoutMs, auth: undefined })
    server = await start(requestTimeoutMs)
    patientServer = await start(patientTimeoutMs)
  })
  afterAll(() => Promise.all([server.close(), patientServer.close()]))

  it('answers a request whose Content-Length overstates its body with a JSON 408 and closes the connection', async () => {
    const head = 'POST /maker/1/firm HTTP/1.1\r\nHost: maker\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n'
    const exchange = await exchangeRaw(server.url, [head, '{"makerAs'], { guardMs })
    expect(exchange).toMatchObject({ writeError: undefined, closed: true })
    expect(parseRawAnswers(exchange.text)).toEqual([
      expect.objectContaining({ status: 408, json: { error: 'request timeout: the request was not received in time' } }),
    ])
  })

  it('answers a body over the limit with a JSON 413 that a client writing its whole body first can read', async () => {
    const body = Buffer.alloc(16 * 1024 * 1024, 'x')
    const head = `POST /maker/1/firm HTTP/1.1\r\nHost: maker\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`
    // A second request on the same connection: the rest of the refused body was read away, not left in the stream.
    const next = 'GET /maker/1/tokens HTTP/1.1\r\nHost: maker\r\nConnection: close\r\n\r\n'
    const exchange = await exchangeRaw(patientServer.url, [head, body, next], { guardMs })
    expect(exchange).toMatchObject({ writeError: undefined, closed: true })
    const [refused, served, ...others] = parseRawAnswers(exchange.text)
    expect(refused).toMatchObject({ status: 413, json: { error: 'request body too large: the limit is 16384 bytes' } })
    expect(served?.status).toBe(200)
    expect(others).toEqual([])
  })

  it('keeps a WebSocket open longer than the request and idle timeouts', async () => {
    const socket = new WebSocket(`${server.url.replace('http', 'ws')}/maker/1/ws`)
    const closed: string[] = []
    socket.on('close', (code) => closed.push(`closed with ${code}`))
    await new Promise((resolve, reject) => {
      socket.once('message', resolve)
      socket.once('error', reject)
    })
    // The server drops a silent HTTP socket after twice the request timeout.
    await new Promise((resolve) => setTimeout(resolve, 2 * 2 * requestTimeoutMs))
    expect(closed).toEqual([])
    expect(socket.readyState).toBe(WebSocket.OPEN)
    socket.close()
  })
})
