import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { developmentAccounts } from '../../src/sandbox/chains/accounts.js'
import type { MakerStatus } from '../../src/sandbox/makers/registered-maker.js'
import { request, sandboxToken, useSandbox } from '../helpers/sandbox.js'
import { type ScriptedMaker, startScriptedMaker, waitUntil } from '../helpers/scripted-maker.js'

const chainId = 1
const credentials = { domain: 'sandbox-tests', accessKey: 'access-key-1', secret: 'secret-of-the-tests' }
// WETH/USDC priced better than the pools (about 1952 out for 1 WETH sold, 1965 in for 1 WETH bought).
const book = {
  bids: [
    ['1960', '2'],
    ['1955', '10'],
  ],
  asks: [
    ['1962', '2'],
    ['1966', '10'],
  ],
} as const

function account(index: number) {
  const key = developmentAccounts[index]?.privateKey
  if (!key) throw new Error(`no development account ${index}`)
  return privateKeyToAccount(key)
}

describe('sandbox makers: registration and polling', () => {
  const sandbox = useSandbox({
    chainIds: [chainId],
    makerTiming: { pricesIntervalMs: 100, requestTimeoutMs: 300, failuresBeforePause: 3, pauseMs: 1_500 },
  })
  let maker: ScriptedMaker

  beforeAll(async () => {
    const weth = sandboxToken(sandbox(), chainId, 'WETH')
    const usdc = sandboxToken(sandbox(), chainId, 'USDC')
    maker = await startScriptedMaker({
      chainId,
      rfq: sandbox().venue.chains.get(chainId)?.fixture.contracts.rfq ?? '0x',
      account: account(9),
      impostor: account(8),
      tokens: {
        WETH: { symbol: 'WETH', ...weth },
        USDC: { symbol: 'USDC', ...usdc },
        FOO: { symbol: 'FOO', address: '0x00000000000000000000000000000000000f0000', decimals: 18 },
      },
      pairs: { 'WETH/USDC': { base: 'WETH', quote: 'USDC' }, 'FOO/USDC': { base: 'FOO', quote: 'USDC' } },
      prices: { 'WETH/USDC': book, 'FOO/USDC': { bids: [['1', '1']] } },
      credentials,
      stallMs: 1_000,
    })
    const registered = await request(sandbox().url, 'POST', '/_sandbox/makers', {
      name: 'scripted',
      chainId,
      url: maker.url,
      auth: credentials,
    })
    expect(registered.status, registered.text).toBe(201)
  })
  afterAll(async () => {
    await maker?.close()
  })

  const status = async (): Promise<MakerStatus | undefined> => {
    const answer = await request(sandbox().url, 'GET', '/_sandbox/makers')
    return (answer.json as { makers: MakerStatus[] }).makers.find((entry) => entry.name === 'scripted')
  }
  const exchangeOfSell = async () => {
    const query = new URLSearchParams({ srcToken: 'WETH', destToken: 'USDC', amount: '1000000000000000000', network: '1', version: '6.2' })
    const answer = await request(sandbox().url, 'GET', `/prices?${query}`)
    expect(answer.status, answer.text).toBe(200)
    return (answer.json as { priceRoute: { bestRoute: { swaps: { swapExchanges: { exchange: string }[] }[] }[] } }).priceRoute.bestRoute[0]
      ?.swaps[0]?.swapExchanges[0]?.exchange
  }
  const routedThroughMaker = () => waitUntil(async () => (await exchangeOfSell()) === 'AugustusRFQ', { what: 'the maker route' })

  it('polls /prices with valid signatures: the maker refuses none of them', async () => {
    const before = maker.served['/prices'] ?? 0
    await waitUntil(() => (maker.served['/prices'] ?? 0) >= before + 3, { what: 'three polls' })
    expect(maker.rejectedAuth).toBe(0)
    expect(maker.served['/tokens']).toBeGreaterThanOrEqual(1)
    expect(maker.served['/blacklist']).toBeGreaterThanOrEqual(1)
  })

  it('lists the maker with its state, pairs served and levels cached, never its credentials', async () => {
    await routedThroughMaker()
    const answer = await request(sandbox().url, 'GET', '/_sandbox/makers')
    expect(answer.text).not.toContain(credentials.secret)
    expect(answer.text).not.toContain(credentials.accessKey)
    expect(await status()).toMatchObject({
      name: 'scripted',
      chainId,
      url: maker.url,
      state: 'ok',
      disabledUntil: null,
      pairsServed: 1, // FOO is not a token of the chain: FOO/USDC is ignored
      levelsCached: 4,
    })
  })

  it('answers 400 naming every bad field of a registration', async () => {
    const answer = await request(sandbox().url, 'POST', '/_sandbox/makers', { name: '', chainId: 'one', url: 'ftp://maker' })
    expect(answer.status).toBe(400)
    const error = (answer.json as { error: string }).error
    expect(error).toMatch(/body\.name/)
    expect(error).toMatch(/body\.chainId/)
    expect(error).toMatch(/body\.url/)
  })

  it('answers 400 for a chain the sandbox does not run', async () => {
    const answer = await request(sandbox().url, 'POST', '/_sandbox/makers', {
      name: 'elsewhere',
      chainId: 10,
      url: maker.url,
      auth: credentials,
    })
    expect(answer.status).toBe(400)
    expect((answer.json as { error: string }).error).toMatch(/body\.chainId: chain 10 is not running/)
  })

  it('answers 409 when the name is taken', async () => {
    const answer = await request(sandbox().url, 'POST', '/_sandbox/makers', {
      name: 'scripted',
      chainId,
      url: maker.url,
      auth: credentials,
    })
    expect(answer.status).toBe(409)
  })

  it("answers 502 with the maker's error and registers nothing when its /tokens refuses the credentials", async () => {
    const rejectedBefore = maker.rejectedAuth
    const answer = await request(sandbox().url, 'POST', '/_sandbox/makers', {
      name: 'wrong-secret',
      chainId,
      url: maker.url,
      auth: { ...credentials, secret: 'not-the-secret' },
    })
    expect(answer.status).toBe(502)
    expect((answer.json as { error: string }).error).toMatch(/answered 401: bad signature/)
    expect(maker.rejectedAuth).toBeGreaterThan(rejectedBefore)
    const listed = (await request(sandbox().url, 'GET', '/_sandbox/makers')).json as { makers: MakerStatus[] }
    expect(listed.makers.map((entry) => entry.name)).toEqual(['scripted'])
  })

  it('answers 502 when the maker is unreachable', async () => {
    const answer = await request(sandbox().url, 'POST', '/_sandbox/makers', { name: 'nobody', chainId, url: 'http://127.0.0.1:9/maker' })
    expect(answer.status).toBe(502)
  })

  it('takes the maker out of routing at once when /prices serves a crossed book, and back when it recovers', async () => {
    await routedThroughMaker()
    maker.pricesMode = 'crossed'
    try {
      await waitUntil(async () => (await status())?.state === 'disabled', { what: 'the maker disabled' })
      expect(await exchangeOfSell()).toBe('SandboxPool30')
      expect((await status())?.lastError).toMatch(/crossed book/)
    } finally {
      maker.pricesMode = 'ok'
    }
    await routedThroughMaker()
  })

  it('pauses the maker after 3 failed polls: no polls until the pause ends, then routes it again', async () => {
    await routedThroughMaker()
    maker.pricesMode = 'error'
    let paused: MakerStatus
    try {
      paused = await waitUntil(
        async () => {
          const current = await status()
          return current?.disabledUntil !== null ? current : undefined
        },
        { what: 'the pause' },
      )
      expect(paused.state).toBe('disabled')
      expect(paused.lastError).toMatch(/answered 500: pricing engine down/)
      expect(await exchangeOfSell()).toBe('SandboxPool30')
      const polls = maker.served['/prices'] ?? 0
      await new Promise((resolve) => setTimeout(resolve, 500))
      expect(maker.served['/prices'] ?? 0).toBe(polls)
    } finally {
      maker.pricesMode = 'ok'
    }
    await routedThroughMaker()
    expect((await status())?.state).toBe('ok')
  })

  it('takes the maker out of routing when /prices times out or answers a non-JSON body', async () => {
    for (const mode of ['timeout', 'non-json'] as const) {
      await routedThroughMaker()
      maker.pricesMode = mode
      try {
        await waitUntil(async () => (await status())?.state === 'disabled', { what: `the maker disabled by ${mode}` })
        expect(await exchangeOfSell()).toBe('SandboxPool30')
      } finally {
        maker.pricesMode = 'ok'
      }
    }
    await routedThroughMaker()
  })

  it('stops polling and routing a deleted maker; a second delete answers 404', async () => {
    await routedThroughMaker()
    const deleted = await request(sandbox().url, 'DELETE', '/_sandbox/makers/scripted')
    expect(deleted.status).toBe(200)
    expect(await exchangeOfSell()).toBe('SandboxPool30')
    const polls = maker.served['/prices'] ?? 0
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect(maker.served['/prices'] ?? 0).toBe(polls)
    expect((await request(sandbox().url, 'DELETE', '/_sandbox/makers/scripted')).status).toBe(404)
  })
})
