import { randomUUID } from 'node:crypto'
import { createServer, type Server } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseConfigDocument } from '../../src/config/load-config.js'
import { createLogger } from '../../src/log/logger.js'
import { type BotSession, openBot } from '../../src/runtime/open-bot.js'
import { developmentAccounts } from '../../src/sandbox/chains/accounts.js'
import { readBody } from '../helpers/fault-proxy.js'
import { sandboxToken, useSandbox } from '../helpers/sandbox.js'
import { createTempDirectory } from '../helpers/temp-directory.js'

const directory = createTempDirectory('deltaflow-health-')
afterAll(() => directory.cleanup())
const logger = createLogger({ level: 'silent' })

/** A path segment standing for an RPC provider's API key: it must never show in /health or /metrics. */
const rpcKey = 'k3y-0f-the-rpc-provider'

/**
 * A JSON-RPC proxy in front of an anvil node, on a fixed port: `refuse()` stops listening (connections are refused, as
 * with a node that is down), `serve()` listens again on the same port.
 */
async function startRpcProxy(target: string) {
  const sockets = new Set<Socket>()
  const server: Server = createServer((request, response) => {
    void (async () => {
      const body = (await readBody(request)).toString()
      const answer = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
      const text = await answer.text()
      response.writeHead(answer.status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) })
      response.end(text)
    })().catch(() => response.destroy())
  })
  server.on('connection', (socket) => {
    sockets.add(socket)
    socket.once('close', () => sockets.delete(socket))
  })
  const listen = (port: number) => new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve))
  await listen(0)
  const port = (server.address() as AddressInfo).port
  return {
    url: `http://127.0.0.1:${port}/v3/${rpcKey}`,
    refuse: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()))
      for (const socket of sockets) socket.destroy()
      await closed
    },
    serve: () => listen(port),
    close: async () => {
      for (const socket of sockets) socket.destroy()
      if (server.listening) await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

type HealthAnswer = { status: number; body: Record<string, unknown>; text: string }

/** Polls GET /health until `accept` takes an answer (the bot's passes and probes run on real timers). */
async function healthUntil(url: string, accept: (answer: HealthAnswer) => boolean, what: string): Promise<HealthAnswer> {
  const deadline = Date.now() + 15_000
  let last: HealthAnswer | undefined
  for (;;) {
    const response = await fetch(`${url}/health`)
    const text = await response.text()
    last = { status: response.status, body: JSON.parse(text) as Record<string, unknown>, text }
    if (accept(last)) return last
    if (Date.now() > deadline) throw new Error(`GET /health: no ${what} within 15 s; last answer ${last.status} ${text}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

/** The value of one series in the text exposition, 0 when absent. */
function seriesValue(metrics: string, series: string): number {
  const line = metrics.split('\n').find((candidate) => candidate.startsWith(`${series} `))
  return line === undefined ? 0 : Number(line.slice(series.length + 1))
}

describe('GET /health and /metrics of a bot whose chain or venue stops answering', () => {
  const sandbox = useSandbox({ chainIds: [1, 8453] })
  let proxy: Awaited<ReturnType<typeof startRpcProxy>>
  let session: BotSession
  let ops: string

  beforeAll(async () => {
    const running = sandbox()
    const base = running.chains.find((chain) => chain.chainId === 8453)
    proxy = await startRpcProxy(base?.rpcUrl ?? '')
    const mainnet = running.chains.find((chain) => chain.chainId === 1)?.rpcUrl
    const text = [
      'mode: paper',
      `venue: { url: "${running.url}", retries: 1 }`,
      `chains: { "1": { rpcUrls: ["${mainnet}"] }, "8453": { rpcUrls: ["${proxy.url}"] } }`,
      'wallet: { privateKeyEnv: HEALTH_TEST_KEY }',
      `db: "${directory.path('health.sqlite')}"`,
      'feed: { intervalMs: 200 }',
      'reconcile: { intervalMs: 300 }',
      'ops: { port: 0, unhealthyAfterMs: 400 }',
      'strategies:',
      // Polls a quote on chain 1 and never trades (no quote reaches minDestAmount): the venue is called all along.
      '  - name: watcher',
      '    use: example',
      `    config: { chainId: 1, srcToken: "${sandboxToken(running, 1, 'USDC').address}", destToken: "${sandboxToken(running, 1, 'WETH').address}", amount: "1000000", minDestAmount: "${10n ** 40n}" }`,
    ].join('\n')
    const env = { HEALTH_TEST_KEY: developmentAccounts[3]?.privateKey ?? '' }
    session = await openBot({ document: parseConfigDocument(text, 'bot.yaml', { env }), live: false, logger, env })
    ops = session.ops?.url ?? ''
    await session.bot.start()
  })
  afterAll(async () => {
    if (session?.bot.stats().running) await session.bot.stop()
    await session?.close()
    await proxy?.close()
  })

  it('answers 200 while the venue and every chain answer', async () => {
    const healthy = await healthUntil(ops, (answer) => answer.status === 200 && session.bot.stats().reconcilePasses > 0, 'healthy answer')
    expect(healthy.body).toMatchObject({ status: 'ok', healthy: true, unavailable: [], pausedChains: [] })
  })

  it('degrades to 503 naming the chain, since when and its last error (no RPC URL) once its RPC has failed longer than the window, and recovers', async () => {
    await proxy.refuse()
    // 503 once the window has passed; paused from the second unanswered call in a row.
    const down = await healthUntil(
      ops,
      (answer) => answer.status === 503 && String(answer.body.pausedChains) === '8453',
      '503 with chain 8453 paused',
    )
    expect(down.body).toMatchObject({
      status: 'unhealthy',
      healthy: false,
      pausedChains: [8453],
      unavailable: [{ target: 'chain 8453', chainId: 8453, lastError: expect.stringMatching(/^HTTP request failed/) }],
    })
    expect(down.body.reason).toMatch(/^chain 8453 has not answered since \d{4}-\d\d-\d\dT[\d:.]+Z \(\d+ failures?\): HTTP request failed/)
    const [problem] = down.body.unavailable as { failingSince: string; failingForMs: number }[]
    expect(problem?.failingForMs).toBeGreaterThan(400)
    expect(down.text).not.toContain(rpcKey)
    expect(down.text).not.toContain('127.0.0.1')

    const metrics = await (await fetch(`${ops}/metrics`)).text()
    expect(seriesValue(metrics, 'deltaflow_rpc_errors_total{chain="8453",kind="network"}')).toBeGreaterThan(0)
    expect(seriesValue(metrics, 'deltaflow_rpc_errors_total{chain="1",kind="network"}')).toBe(0)
    expect(seriesValue(metrics, 'deltaflow_connection_up{target="chain",chain="8453"}')).toBe(0)
    expect(seriesValue(metrics, 'deltaflow_connection_up{target="chain",chain="1"}')).toBe(1)
    expect(metrics).not.toContain(rpcKey)

    await proxy.serve()
    const up = await healthUntil(ops, (answer) => answer.status === 200, 'recovery to 200')
    expect(up.body).toMatchObject({ healthy: true, unavailable: [], pausedChains: [] })
    const after = await (await fetch(`${ops}/metrics`)).text()
    expect(seriesValue(after, 'deltaflow_connection_up{target="chain",chain="8453"}')).toBe(1)
  })

  it('degrades to 503 naming the venue while every answer is a 5xx, counting requests and retries by endpoint, and recovers', async () => {
    sandbox().faults.add({ route: 'GET /prices', status: 503 })
    try {
      const down = await healthUntil(ops, (answer) => answer.status === 503, '503')
      expect(down.body).toMatchObject({
        unavailable: [{ target: 'venue', lastError: 'GET /prices failed on the service side (503)' }],
        pausedChains: [],
      })
      expect(down.body.reason).toMatch(/^venue has not answered since .+: GET \/prices failed on the service side \(503\)$/)
    } finally {
      sandbox().faults.clear()
    }
    const metrics = await (await fetch(`${ops}/metrics`)).text()
    expect(seriesValue(metrics, 'deltaflow_api_requests_total{endpoint="GET /prices",outcome="server-error"}')).toBeGreaterThan(0)
    expect(seriesValue(metrics, 'deltaflow_api_requests_total{endpoint="GET /prices",outcome="ok"}')).toBeGreaterThan(0)
    expect(seriesValue(metrics, 'deltaflow_api_retries_total{endpoint="GET /prices",reason="5xx"}')).toBeGreaterThan(0)
    await healthUntil(ops, (answer) => answer.status === 200, 'recovery to 200')
  })

  it('counts the venue reads that fail during reconciliation by endpoint', async () => {
    // A journal order under a venue id the venue never issued: every pass fails to read it.
    const intentId = `intent-ghost-${randomUUID()}`
    session.journal.recordIntent({ id: intentId, strategy: 'watcher', kind: 'swap', intent: {} })
    const ghost = session.journal.recordSignedOrder({
      id: `${intentId}/0`,
      intentId,
      mode: 'delta',
      account: session.account.address,
      chainId: 1,
      orderHash: `0x${'ab'.repeat(32)}`,
      srcToken: sandboxToken(sandbox(), 1, 'USDC').address,
      destToken: sandboxToken(sandbox(), 1, 'WETH').address,
      srcAmount: 1n,
      destAmount: 1n,
      side: 'SELL',
      signedPayload: {},
    })
    session.journal.markSubmitted(ghost.id, { venueId: randomUUID() })
    const series = 'deltaflow_reconcile_read_errors_total{source="venue",endpoint="GET /v2/delta/orders/{orderId}"}'
    const deadline = Date.now() + 10_000
    while (seriesValue(await (await fetch(`${ops}/metrics`)).text(), series) === 0) {
      if (Date.now() > deadline) throw new Error(`${series} stayed 0 for 10 s`)
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    // A read the venue refused (404) is an answer: the bot stays healthy.
    expect((await fetch(`${ops}/health`)).status).toBe(200)
  })
})
