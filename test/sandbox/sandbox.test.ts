import { spawn } from 'node:child_process'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { deltaAddress, marketRouterAddress, rfqAddresses } from '../../src/protocol/addresses.js'
import { startSandbox } from '../../src/sandbox/start-sandbox.js'
import { anvilPidsOnPort, waitForExit } from '../helpers/processes.js'
import { request, useSandbox } from '../helpers/sandbox.js'

describe('sandbox resources', () => {
  const sandbox = useSandbox({ chainIds: [1, 100] })

  it('serves contracts.json with the production roles per running chain, omitting Delta where production has none', async () => {
    const { status, json } = await request(sandbox().url, 'GET', '/resources/contracts.json')
    expect(status).toBe(200)
    const { chains } = json as { chains: Record<string, Record<string, string>> }
    expect(Object.keys(chains)).toEqual(['1', '100'])
    expect(chains['1']).toMatchObject({
      name: 'Ethereum',
      augustusV6_2: marketRouterAddress,
      delta: deltaAddress,
      augustusRFQ: rfqAddresses[1],
    })
    expect(chains['100']).toMatchObject({ name: 'Gnosis', augustusV6_2: marketRouterAddress, augustusRFQ: rfqAddresses[100] })
    expect(chains['100']).not.toHaveProperty('delta')
    expect(chains['100']).not.toHaveProperty('deltaWrappedNative')
  })

  it('lists its errors in errors.json with endpoint, status and the matched text', async () => {
    const { json } = await request(sandbox().url, 'GET', '/resources/errors.json')
    const { errors } = json as { errors: { endpoint: string; status: number; match: string }[] }
    expect(errors.length).toBeGreaterThan(0)
    expect(errors).toContainEqual(expect.objectContaining({ status: 429, match: 'Too many requests' }))
  })

  it('answers unknown paths with a JSON error', async () => {
    const { status, json } = await request(sandbox().url, 'GET', '/no/such/path')
    expect(status).toBe(404)
    expect(json).toEqual({ error: 'Not found: GET /no/such/path' })
  })
})

describe('sandbox fault injection', () => {
  const sandbox = useSandbox({ chainIds: [1] })
  const path = '/resources/contracts.json'
  const addFault = (rule: Record<string, unknown>) => request(sandbox().url, 'POST', '/_sandbox/faults', rule)

  it('answers 429 with Retry-After for the number of requests asked, then recovers', async () => {
    await addFault({ route: `GET ${path}`, status: 429, retryAfterSeconds: 3, times: 2 })
    const first = await request(sandbox().url, 'GET', path)
    const second = await request(sandbox().url, 'GET', path)
    const third = await request(sandbox().url, 'GET', path)
    expect([first.status, second.status, third.status]).toEqual([429, 429, 200])
    expect(first.headers.get('retry-after')).toBe('3')
    expect(first.json).toEqual({ error: 'Too many requests' })
  })

  it('can answer 5xx with an empty body or with a body that is not JSON', async () => {
    await addFault({ route: `GET ${path}`, status: 503, body: 'empty', times: 1 })
    await addFault({ route: `GET ${path}`, status: 502, body: 'non-json', times: 1 })
    const empty = await request(sandbox().url, 'GET', path)
    const html = await request(sandbox().url, 'GET', path)
    expect(empty).toMatchObject({ status: 503, text: '' })
    expect(html.status).toBe(502)
    expect(html.json).toBeUndefined()
    expect(html.text).toContain('<html>')
  })

  it('drops the connection without an answer', async () => {
    await addFault({ route: `GET ${path}`, drop: true, times: 1 })
    await expect(fetch(`${sandbox().url}${path}`)).rejects.toThrow()
    expect((await request(sandbox().url, 'GET', path)).status).toBe(200)
  })

  it('matches routes by method and path prefix, and lists and clears rules', async () => {
    await addFault({ route: 'POST /resources/*', status: 500 })
    expect((await request(sandbox().url, 'GET', path)).status).toBe(200)
    const { json } = await request(sandbox().url, 'GET', '/_sandbox/faults')
    expect((json as { faults: unknown[] }).faults).toHaveLength(1)
    await request(sandbox().url, 'DELETE', '/_sandbox/faults')
    expect(((await request(sandbox().url, 'GET', '/_sandbox/faults')).json as { faults: unknown[] }).faults).toHaveLength(0)
  })

  it('refuses a malformed fault rule, naming the field', async () => {
    const { status, json } = await addFault({ route: 'GET /x', status: 200 })
    expect(status).toBe(400)
    expect((json as { error: string }).error).toMatch(/status/)
  })
})

describe('sandbox market replay', () => {
  it('moves the pools toward the reference price path as sandbox time passes', async () => {
    const sandbox = await startSandbox({ chainIds: [1], speed: 3_600, arbitrageIntervalMs: 200 })
    try {
      const chain = sandbox.venue.chains.get(1)
      const reservesAtStart = chain?.pools.map((pool) => pool.reserve0)
      const deadline = Date.now() + 15_000
      let moved = false
      while (!moved && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 250))
        moved = chain?.pools.some((pool, index) => pool.reserve0 !== reservesAtStart?.[index]) ?? false
      }
      expect(moved).toBe(true)
      const { json } = await request(sandbox.url, 'GET', '/_sandbox/market')
      expect((json as { referencePricesUsd: Record<string, number> }).referencePricesUsd.USDC).toBe(1)
    } finally {
      await sandbox.stop()
    }
  })
})

describe('deltaflow sandbox', () => {
  it.each([['sandbox', '--json', '--chains', '1,8453', '--port', '0']])(
    'deltaflow %s prints exactly one JSON line (url, chains, accounts, tokens) and stops everything on SIGTERM',
    async (...args) => {
      const root = fileURLToPath(new URL('../..', import.meta.url))
      const child = spawn(process.execPath, ['bin/deltaflow.js', ...args], {
        cwd: root,
        stdio: ['ignore', 'pipe', 'inherit'],
      })
      const exited = new Promise<number | null>((resolve) => child.once('exit', resolve))
      const lines: string[] = []
      const reader = createInterface({ input: child.stdout })
      reader.on('line', (line) => lines.push(line))
      while (lines.length === 0) await new Promise((resolve) => setTimeout(resolve, 50))
      const info = JSON.parse(lines[0] ?? '') as {
        url: string
        chains: { chainId: number; rpcUrl: string }[]
        accounts: { address: string; privateKey: string }[]
        tokens: { chainId: number; symbol: string; address: string; decimals: number }[]
      }
      expect(Object.keys(info)).toEqual(['url', 'chains', 'accounts', 'tokens'])
      expect(info.chains.map((chain) => chain.chainId)).toEqual([1, 8453])
      expect(info.accounts).toHaveLength(10)
      expect(info.tokens).toContainEqual({
        chainId: 8453,
        symbol: 'USDC',
        address: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
        decimals: 6,
      })
      expect((await request(info.url, 'GET', '/resources/contracts.json')).status).toBe(200)
      const pids = (await Promise.all(info.chains.map((chain) => anvilPidsOnPort(Number(new URL(chain.rpcUrl).port))))).flat()
      child.kill('SIGTERM')
      expect(await exited).toBe(0)
      expect(lines).toHaveLength(1)
      await waitForExit(pids)
    },
  )
})
