import { Agent, createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import { createRandom } from '../../src/domain/seeded-random.js'

// An HTTP proxy in front of the sandbox's API or a chain's JSON-RPC that breaks a share of the requests the way networks
// and busy services do. Which requests and which faults come from one seeded sequence per proxy: the same seed and the
// same order of requests give the same faults.

/** Faults injected per request. */
export const requestFaultKinds = ['429', '5xx', 'timeout', 'malformed', 'truncated', 'drop'] as const
export type RequestFaultKind = (typeof requestFaultKinds)[number]

/**
 * About one request in `meanGap` is faulted (gaps drawn from 1 to 2 × meanGap − 1), the kinds taken in turn from a
 * seeded shuffle of `kinds`, shuffled again after each round, so every kind occurs once per round:
 * - `429`: answered at once with 429 and `Retry-After`; never forwarded.
 * - `5xx`: answered at once with 500, 502 or 503 and an HTML body; never forwarded.
 * - `timeout`: held without an answer until the client gives up (or `holdMs`); never forwarded.
 * - `malformed`: forwarded (the service acts); its 2xx answer replaced by a body that is not JSON.
 * - `truncated`: forwarded; its 2xx answer cut in half (Content-Length of the cut body).
 * - `drop`: forwarded; once the service answered, the connection is closed without a byte of the answer.
 * A `malformed` or `truncated` fault whose answer is not a 2xx stays armed for the next request.
 */
export type FaultPlan = { meanGap: number; kinds?: readonly RequestFaultKind[] | undefined }

/**
 * Windows during which every request fails: `refuse` stops listening (connections refused), `hang` never answers,
 * `unavailable` answers 503 at once (a service down for longer than a client's retries last).
 */
export type OutageKind = 'refuse' | 'hang' | 'unavailable'

export type FaultCounts = Record<RequestFaultKind, number> & {
  /** Requests seen outside outages (faulted or not). */
  requests: number
  /** Outage windows begun; requests held during a `hang` window, answered 503 during an `unavailable` one. */
  outages: number
  hung: number
  unavailable: number
}

export type StartFaultProxyParameters = {
  /** Base URL of the service behind the proxy (http, on loopback). */
  target: string
  seed: number
  /** Default: no faults until `setFaults`. */
  faults?: FaultPlan | undefined
  /** Requests that are always forwarded untouched (e.g. the sandbox's own control routes). */
  exempt?: ((method: string, path: string) => boolean) | undefined
  /** Seconds a 429 asks to wait. Default 1. */
  retryAfterSeconds?: number | undefined
  /** Longest a `timeout` request is held before its socket is closed, real ms. Default 30_000. */
  holdMs?: number | undefined
}

export type FaultProxy = {
  /** The proxy's base URL (same paths as the target). */
  url: string
  /** Replaces the fault plan; undefined forwards everything untouched. */
  setFaults: (plan: FaultPlan | undefined) => void
  /** Begins an outage; it lasts until `endOutage`. */
  beginOutage: (kind: OutageKind) => Promise<void>
  /** Ends the outage in course (held requests are cut), listening again on the same port. */
  endOutage: () => Promise<void>
  counts: () => FaultCounts
  /** Stops the proxy; rejects when the proxy itself failed to handle a request. */
  close: () => Promise<void>
}

/** Starts a fault proxy on 127.0.0.1 (a free port). */
export async function startFaultProxy({
  target,
  seed,
  faults: initialPlan,
  exempt = () => false,
  retryAfterSeconds = 1,
  holdMs = 30_000,
}: StartFaultProxyParameters): Promise<FaultProxy> {
  const random = createRandom(seed)
  const upstream = new URL(target)
  const agent = new Agent({ keepAlive: true, maxSockets: 64 })
  const counts: FaultCounts = { requests: 0, outages: 0, hung: 0, unavailable: 0, ...zeroCounts() }
  const sockets = new Set<Socket>()
  const held = new Set<Socket>()
  let plan = initialPlan === undefined ? undefined : checkPlan(initialPlan)
  let outage: OutageKind | undefined
  let round: RequestFaultKind[] = []
  let armed: RequestFaultKind | undefined
  let gap = 0
  /** A fault that could not apply to its request (an answer not 2xx): the next request takes it. */
  let carried: RequestFaultKind | undefined
  let ownError: unknown

  /** Draws the gap to the next fault and its kind. */
  function arm(): void {
    if (!plan) return
    if (round.length === 0) round = shuffle([...(plan.kinds ?? requestFaultKinds)])
    armed = round.shift()
    gap = 1 + Math.floor(random() * (2 * plan.meanGap - 1))
  }

  /** The fault of this request, if its turn came (taken at once: requests in flight together never share one). */
  function decide(): RequestFaultKind | undefined {
    if (!plan) return undefined
    if (carried !== undefined) {
      const kind = carried
      carried = undefined
      return kind
    }
    if (armed === undefined) arm()
    gap -= 1
    if (gap > 0) return undefined
    const kind = armed
    arm()
    return kind
  }

  function injected(kind: RequestFaultKind): void {
    counts[kind] += 1
  }

  function shuffle<T>(items: T[]): T[] {
    for (let index = items.length - 1; index > 0; index--) {
      const other = Math.floor(random() * (index + 1))
      ;[items[index], items[other]] = [items[other] as T, items[index] as T]
    }
    return items
  }

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const body = await readBody(request)
    const path = request.url ?? '/'
    if (outage === 'hang') {
      counts.hung += 1
      return hold(request.socket)
    }
    if (outage === 'unavailable') {
      counts.unavailable += 1
      return answer(response, 503, { 'content-type': 'text/html' }, '<html><body><h1>503</h1>down for maintenance</body></html>')
    }
    counts.requests += 1
    const fault = exempt(request.method ?? 'GET', path) ? undefined : decide()
    if (fault === '429') {
      injected('429')
      return answer(
        response,
        429,
        { 'content-type': 'application/json', 'retry-after': String(retryAfterSeconds) },
        '{"error":"Too many requests"}',
      )
    }
    if (fault === '5xx') {
      injected('5xx')
      const status = [500, 502, 503][Math.floor(random() * 3)] ?? 502
      return answer(response, status, { 'content-type': 'text/html' }, `<html><body><h1>${status}</h1>upstream unavailable</body></html>`)
    }
    if (fault === 'timeout') {
      injected('timeout')
      return hold(request.socket)
    }
    let forwarded: Forwarded
    try {
      forwarded = await forward(request, body, path)
    } catch {
      // The target itself failed (stopped, reset): the client sees a reset too.
      request.socket.destroy()
      return
    }
    const ok = forwarded.status >= 200 && forwarded.status < 300
    if (fault === 'drop') {
      injected('drop')
      request.socket.destroy()
      return
    }
    if (fault === 'malformed' && ok) {
      injected('malformed')
      return answer(
        response,
        forwarded.status,
        { 'content-type': 'application/json' },
        '<html><body>Service temporarily unavailable</body></html>',
      )
    }
    if (fault === 'truncated' && ok && forwarded.body.length > 1) {
      injected('truncated')
      return answer(response, forwarded.status, forwarded.headers, forwarded.body.subarray(0, Math.floor(forwarded.body.length / 2)))
    }
    if (fault === 'malformed' || fault === 'truncated') carried = fault
    answer(response, forwarded.status, forwarded.headers, forwarded.body)
  }

  type Forwarded = { status: number; headers: Record<string, string>; body: Buffer }

  function forward(request: IncomingMessage, body: Buffer, path: string): Promise<Forwarded> {
    const headers: Record<string, string> = {}
    for (const [name, value] of Object.entries(request.headers)) {
      if (value === undefined || hopByHop.has(name)) continue
      headers[name] = Array.isArray(value) ? value.join(', ') : value
    }
    headers.host = upstream.host
    if (body.length > 0) headers['content-length'] = String(body.length)
    return new Promise((resolve, reject) => {
      const outgoing = httpRequest(
        { agent, host: upstream.hostname, port: upstream.port, method: request.method, path, headers },
        (incoming) => {
          const chunks: Buffer[] = []
          incoming.on('data', (chunk: Buffer) => chunks.push(chunk))
          incoming.on('error', reject)
          incoming.on('end', () => {
            const kept: Record<string, string> = {}
            for (const [name, value] of Object.entries(incoming.headers)) {
              if (value === undefined || hopByHop.has(name) || name === 'content-length') continue
              kept[name] = Array.isArray(value) ? value.join(', ') : value
            }
            resolve({ status: incoming.statusCode ?? 502, headers: kept, body: Buffer.concat(chunks) })
          })
        },
      )
      outgoing.on('error', reject)
      outgoing.end(body)
    })
  }

  function hold(socket: Socket): void {
    held.add(socket)
    const timer = setTimeout(() => socket.destroy(), holdMs)
    socket.once('close', () => {
      clearTimeout(timer)
      held.delete(socket)
    })
  }

  const server: Server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      // A fault of the proxy itself, not one it injects: the client sees a reset, close() reports it.
      ownError ??= error
      request.socket.destroy()
    })
  })
  server.keepAliveTimeout = 5_000
  server.on('connection', (socket) => {
    sockets.add(socket)
    socket.once('close', () => sockets.delete(socket))
  })
  await listen(server, 0)
  const port = (server.address() as AddressInfo).port

  return {
    url: `http://127.0.0.1:${port}`,
    setFaults: (next) => {
      plan = next === undefined ? undefined : checkPlan(next)
      round = []
      armed = undefined
      carried = undefined
    },
    beginOutage: async (kind) => {
      if (outage !== undefined) throw new Error(`an outage (${outage}) is already in course`)
      outage = kind
      counts.outages += 1
      if (kind === 'refuse') {
        const closed = new Promise<void>((resolve) => server.close(() => resolve()))
        for (const socket of sockets) socket.destroy()
        await closed
      }
    },
    endOutage: async () => {
      const ended = outage
      outage = undefined
      for (const socket of held) socket.destroy()
      if (ended === 'refuse') await listen(server, port)
    },
    counts: () => ({ ...counts }),
    close: async () => {
      outage = undefined
      for (const socket of sockets) socket.destroy()
      agent.destroy()
      if (server.listening) await new Promise<void>((resolve) => server.close(() => resolve()))
      if (ownError !== undefined) throw new Error('fault proxy: handling a request failed', { cause: ownError })
    },
  }
}

const hopByHop = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'proxy-connection', 'te', 'trailer'])

function zeroCounts(): Record<RequestFaultKind, number> {
  return Object.fromEntries(requestFaultKinds.map((kind) => [kind, 0])) as Record<RequestFaultKind, number>
}

function checkPlan(plan: FaultPlan): FaultPlan {
  if (!Number.isInteger(plan.meanGap) || plan.meanGap < 1) {
    throw new Error(`fault proxy: expected meanGap to be an integer of at least 1, received ${String(plan.meanGap)}`)
  }
  for (const kind of plan.kinds ?? []) {
    if (!(requestFaultKinds as readonly string[]).includes(kind)) {
      throw new Error(`fault proxy: expected a fault kind (${requestFaultKinds.join(', ')}), received "${kind}"`)
    }
  }
  if (plan.kinds?.length === 0) throw new Error('fault proxy: expected at least one fault kind, received an empty list')
  return { meanGap: plan.meanGap, kinds: plan.kinds ? [...plan.kinds] : undefined }
}

/** The whole body of a request the proxy received. */
export function readBody(request: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => resolve(Buffer.concat(chunks)))
    request.on('error', reject)
  })
}

function answer(response: ServerResponse, status: number, headers: Record<string, string>, body: string | Buffer): void {
  const bytes = typeof body === 'string' ? Buffer.from(body) : body
  response.writeHead(status, { ...headers, 'content-length': String(bytes.length) })
  response.end(bytes)
}

function listen(server: Server, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject)
      resolve()
    })
  })
}
