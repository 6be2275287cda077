import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type FaultProxy, type RequestFaultKind, requestFaultKinds, startFaultProxy } from '../helpers/fault-proxy.js'
import { runSoak, type SoakReport } from '../soak/run-soak.js'
import { formatSoakReport, maxMemoryGrowth } from '../soak/soak-report.js'

// The short soak of CI: ten sandbox minutes at 40 times real time (15 s of faults). `npm run soak` runs the hour.
const soak = { sandboxMinutes: 10, speed: 40, seed: 17 }

describe('fault proxy', () => {
  let target: Server
  let targetUrl: string
  let served = 0
  beforeAll(async () => {
    target = createServer((request, response) => {
      served += 1
      const status = request.url === '/missing' ? 404 : 200
      response.writeHead(status, { 'content-type': 'application/json' })
      response.end(JSON.stringify({ path: request.url, served }))
    })
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve))
    targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}`
  })
  afterAll(() => new Promise<void>((resolve) => target.close(() => resolve())))

  /** A proxy faulting every request with one kind; what the client saw, and whether the target was reached. */
  async function faultOnce(kind: RequestFaultKind, path = '/thing') {
    const proxy = await startFaultProxy({ target: targetUrl, seed: 1, faults: { meanGap: 1, kinds: [kind] }, holdMs: 300 })
    const before = served
    try {
      const response = await fetch(`${proxy.url}${path}`, { signal: AbortSignal.timeout(5_000) })
      const text = await response.text()
      return { status: response.status, retryAfter: response.headers.get('retry-after'), text, reached: served > before, proxy }
    } catch (error) {
      return { error: String(error), reached: served > before, proxy }
    } finally {
      await proxy.close()
    }
  }

  it('answers 429 with Retry-After and 5xx with an HTML body, without forwarding', async () => {
    const limited = await faultOnce('429')
    expect(limited).toMatchObject({ status: 429, retryAfter: '1', reached: false })
    const failed = await faultOnce('5xx')
    expect([500, 502, 503]).toContain(failed.status)
    expect(failed).toMatchObject({ reached: false })
    expect(failed.proxy.counts()).toMatchObject({ '429': 0, '5xx': 1, requests: 1 })
  })

  it('forwards malformed and truncated answers, and drops the answer after the target acted', async () => {
    const malformed = await faultOnce('malformed')
    expect(malformed).toMatchObject({ status: 200, reached: true })
    expect(() => JSON.parse(malformed.text ?? '')).toThrow()
    const truncated = await faultOnce('truncated')
    expect(truncated).toMatchObject({ status: 200, reached: true })
    expect(truncated.text).toMatch(/^\{"path":"\/th/)
    expect(() => JSON.parse(truncated.text ?? '')).toThrow()
    const dropped = await faultOnce('drop')
    expect(dropped).toMatchObject({ reached: true })
    expect(dropped.error).toMatch(/fetch failed/)
    expect(dropped.proxy.counts().drop).toBe(1)
  })

  it('holds a timed-out request without forwarding it, and leaves error answers as they are', async () => {
    const held = await faultOnce('timeout')
    expect(held).toMatchObject({ reached: false })
    expect(held.error).toMatch(/fetch failed/)
    // a malformed fault waits for a 2xx answer: the 404 passes untouched and the fault stays armed
    const missing = await faultOnce('malformed', '/missing')
    expect(missing).toMatchObject({ status: 404, reached: true })
    expect(missing.proxy.counts().malformed).toBe(0)
  })

  it('faults the same requests with the same kinds for the same seed', async () => {
    const sequence = async (seed: number) => {
      const proxy: FaultProxy = await startFaultProxy({ target: targetUrl, seed, faults: { meanGap: 3, kinds: ['429', '5xx'] } })
      const statuses: number[] = []
      for (let index = 0; index < 40; index++) statuses.push((await fetch(proxy.url)).status)
      await proxy.close()
      return statuses
    }
    const first = await sequence(7)
    expect(await sequence(7)).toEqual(first)
    expect(first.filter((status) => status !== 200).length).toBeGreaterThan(5)
  })

  it('refuses connections during a refuse outage and serves again on the same URL after it', async () => {
    const proxy = await startFaultProxy({ target: targetUrl, seed: 1 })
    try {
      await proxy.beginOutage('refuse')
      await expect(fetch(proxy.url)).rejects.toThrow(/fetch failed/)
      await proxy.endOutage()
      expect((await fetch(proxy.url)).status).toBe(200)
      expect(proxy.counts().outages).toBe(1)
    } finally {
      await proxy.close()
    }
  })
})

describe(`fault soak: every built-in strategy for ${soak.sandboxMinutes} sandbox minutes under mixed faults`, () => {
  let report: SoakReport
  let text = ''
  beforeAll(async () => {
    report = await runSoak(soak)
    text = formatSoakReport(report)
  }, 240_000)

  it('injects every kind of API fault, RPC faults, an API outage and both kinds of RPC outage', () => {
    for (const kind of requestFaultKinds) expect(report.faults.api[kind], `${kind}\n${text}`).toBeGreaterThan(0)
    const rpc = Object.values(report.faults.rpc)
    expect(rpc.reduce((sum, counts) => sum + requestFaultKinds.reduce((faults, kind) => faults + counts[kind], 0), 0)).toBeGreaterThan(0)
    expect(new Set(report.faults.outages.map((outage) => outage.kind))).toEqual(new Set(['refuse', 'hang', 'unavailable']))
    const begun = [report.faults.api, ...rpc].reduce((sum, counts) => sum + counts.outages, 0)
    expect(begun).toBe(report.faults.outages.length)
    expect(report.faults.api.unavailable, text).toBeGreaterThan(0)
  })

  it('does not crash: the bot process stops cleanly when told', () => {
    expect({ code: report.exit.code, signal: report.exit.signal, stopped: report.exit.stoppedOk }, text).toEqual({
      code: 0,
      signal: null,
      stopped: true,
    })
  })

  it('ends every queued intent in a result told to its strategy', () => {
    expect(report.intents.queued, text).toBeGreaterThan(10)
    expect(report.intents.results, text).toBe(report.intents.queued)
  })

  it('leaves no duplicate order at the venue or on chain', () => {
    expect(report.journal?.duplicates.details, text).toEqual([])
  })

  it('loses no order and no transaction', () => {
    expect(report.journal?.lost.details, text).toEqual([])
    expect(
      Object.entries(report.journal?.unjournaledTransactions ?? {}).filter(([, count]) => count > 0),
      text,
    ).toEqual([])
    expect(report.journal?.openAfterSettle, text).toEqual([])
  })

  it('conserves every balance to the wei', () => {
    const tokens = report.journal?.conservation.tokens ?? []
    expect(tokens.length, text).toBeGreaterThan(0)
    expect(
      tokens.filter((token) => token.difference !== 0n).map((token) => `${token.chainId}:${token.token} ${token.difference}`),
      text,
    ).toEqual([])
  })

  it(`keeps the bot's memory flat (RSS at the end within ${maxMemoryGrowth * 100} % of its value after warm-up)`, () => {
    expect(report.memory.samples.length, text).toBeGreaterThanOrEqual(8)
    expect(report.memory.growth, text).toBeLessThanOrEqual(maxMemoryGrowth)
  })
})
