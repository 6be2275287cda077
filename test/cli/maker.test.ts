import { type ChildProcess, spawn } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { erc20Abi, maxUint256 } from 'viem'
import { afterAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { openJournal } from '../../src/journal/journal.js'
import { marketRouterAddress } from '../../src/protocol/addresses.js'
import { makerAuthHeaders } from '../../src/protocol/maker-auth.js'
import { developmentAccounts } from '../../src/sandbox/chains/accounts.js'
import { systemClock } from '../../src/time/clock.js'
import { approveToken, broadcast, buildMarketTransaction, type Envelope, marketWallet, quoteMarket } from '../helpers/market.js'
import { request, sandboxToken, useSandbox } from '../helpers/sandbox.js'
import { createTempDirectory } from '../helpers/temp-directory.js'

const root = fileURLToPath(new URL('../..', import.meta.url))
const directory = createTempDirectory('deltaflow-maker-cli-')
const children: ChildProcess[] = []
afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL')
  directory.cleanup()
})

const credentials = { domain: 'cli-test', accessKey: 'cli-access-key', secret: 'cli-secret-for-tests' }
const credentialEnv = {
  DELTAFLOW_MAKER_DOMAIN: credentials.domain,
  DELTAFLOW_MAKER_ACCESS_KEY: credentials.accessKey,
  DELTAFLOW_MAKER_SECRET: credentials.secret,
}
const readySchema = z.strictObject({
  endpoints: z.array(z.strictObject({ chainId: z.number(), url: z.string() })).min(1),
  maker: z.string(),
})

type Maker = {
  child: ChildProcess
  /** Resolves with the first stdout line (the ready line with --json). */
  ready: Promise<string>
  finished: Promise<{ code: number | null; stdout: string; stderr: string }>
}

/** `deltaflow maker <args>` as a user runs it; its environment holds only what the test gives beside the system's. */
function startMaker(args: string[], env: Record<string, string | undefined>): Maker {
  const base = { ...process.env }
  for (const key of Object.keys(base)) if (key.startsWith('DELTAFLOW_MAKER_')) delete base[key]
  const child = spawn(process.execPath, ['bin/deltaflow.js', 'maker', ...args], {
    cwd: root,
    env: { ...base, DELTAFLOW_LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  children.push(child)
  let stdout = ''
  let stderr = ''
  let announce: (line: string) => void = () => {}
  const ready = new Promise<string>((resolve, reject) => {
    announce = resolve
    child.once('exit', () => reject(new Error(`deltaflow maker exited before its ready line:\n${stderr.slice(-3_000)}`)))
  })
  ready.catch(() => undefined)
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString()
    const newline = stdout.indexOf('\n')
    if (newline >= 0) announce(stdout.slice(0, newline))
  })
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString()
  })
  const finished = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.once('exit', (code) => resolve({ code, stdout, stderr })),
  )
  return { child, ready, finished }
}

/** One GET of a maker endpoint, signed as the service signs it (the path includes the base path). */
async function signedGet(endpoint: string, path: string) {
  const url = new URL(`${endpoint}${path}`)
  const headers = makerAuthHeaders(credentials, { nowMs: Date.now(), method: 'GET', path: url.pathname })
  const response = await fetch(url, { headers })
  return { status: response.status, json: (await response.json()) as Record<string, unknown> }
}

describe('deltaflow maker', () => {
  it('refuses to start when a credential variable is missing, naming it, and exits 1', async () => {
    const maker = startMaker(['config/maker.yaml'], { ...credentialEnv, DELTAFLOW_MAKER_SECRET: undefined })
    const { code, stdout, stderr } = await maker.finished
    expect(code).toBe(1)
    expect(stdout).toBe('')
    expect(stderr).toContain('maker.auth is enabled, but the environment variable DELTAFLOW_MAKER_SECRET is not set')
    expect(stderr).not.toContain(credentials.accessKey)
  }, 20_000)

  it('prints one ready line with --json, serves /prices to signed requests only, and stops cleanly on SIGTERM', async () => {
    const maker = startMaker(['config/maker.yaml', '--json'], credentialEnv)
    const ready = readySchema.parse(JSON.parse(await maker.ready))
    expect(ready.maker).toBe(developmentAccounts[1]?.address)
    expect(ready.endpoints).toEqual([{ chainId: 1, url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/maker\/1$/) }])
    const endpoint = ready.endpoints[0]?.url ?? ''

    const signed = await signedGet(endpoint, '/prices')
    expect(signed.status).toBe(200)
    const grid = (signed.json.prices as Record<string, { bids: [string, string][]; asks: [string, string][] }>)['WETH/USDC']
    expect(grid?.bids).toHaveLength(4)
    expect(grid?.asks.map(([, amount]) => amount)).toEqual(['0.5', '0.75', '1.125', '1.6875'])
    const unsigned = await fetch(`${endpoint}/prices`)
    expect(unsigned.status).toBe(401)
    expect(await unsigned.json()).toMatchObject({ error: expect.any(String) })

    maker.child.kill('SIGTERM')
    const { code, stdout, stderr } = await maker.finished
    expect(code, stderr.slice(-2_000)).toBe(0)
    const lines = stdout.trim().split('\n')
    expect(lines).toHaveLength(2)
    expect(JSON.parse(lines[1] ?? '')).toMatchObject({
      summary: { firmQuotes: { total: 0, byStatus: { open: 0, filled: 0, 'partially-filled': 0, expired: 0 } } },
    })
    expect(stderr).not.toContain(credentials.secret)
    await expect(fetch(`${endpoint}/prices`)).rejects.toThrow()
  }, 40_000)

  describe('on a running sandbox', () => {
    const sandbox = useSandbox({ chainIds: [1] })

    it('has a user swap routed through it filled on-chain, and journals the firm quote as filled', async () => {
      const s = sandbox()
      const weth = sandboxToken(s, 1, 'WETH').address
      const usdc = sandboxToken(s, 1, 'USDC').address
      const journalFile = directory.path('maker.sqlite')
      const config = directory.path('maker.yaml')
      writeFileSync(
        config,
        [
          'mode: paper',
          `venue: { url: "${s.url}" }`,
          `chains: { "1": { rpcUrls: ["${s.chains[0]?.rpcUrl}"] } }`,
          'wallet: { privateKeyEnv: MAKER_TEST_KEY }',
          `db: ${journalFile}`,
          'maker:',
          '  chains: { "1": { basePath: /maker/1 } }',
          '  name: cli-maker',
          '  intervals: { referenceMs: 300, quoteMs: 100, balanceMs: 300, followMs: 200 }',
          '  strategy:',
          '    use: market-maker',
          '    config:',
          '      chains:',
          '        "1":',
          `          tokens: { WETH: { address: "${weth}", decimals: 18 }, USDC: { address: "${usdc}", decimals: 6 } }`,
          '          pairs:',
          '            WETH/USDC: { base: WETH, quote: USDC, reference: { source: market, size: "1" }, levels: 3, spreadBps: 2, size: "1" }',
          '',
        ].join('\n'),
      )
      const maker = startMaker([config, '--json'], { ...credentialEnv, MAKER_TEST_KEY: developmentAccounts[2]?.privateKey })
      readySchema.parse(JSON.parse(await maker.ready))
      // The sandbox polls the maker about once a second: wait until its levels are cached for routing.
      for (let attempt = 0; ; attempt++) {
        const listed = await request(s.url, 'GET', '/_sandbox/makers')
        const status = (listed.json as { makers: { name: string; state: string }[] }).makers.find((entry) => entry.name === 'cli-maker')
        if (status?.state === 'ok') break
        if (attempt > 100) throw new Error(`the sandbox never routed the maker: ${listed.text}`)
        await new Promise((resolve) => setTimeout(resolve, 100))
      }

      const user = marketWallet(s, 1, 3)
      await approveToken(user, weth, marketRouterAddress, maxUint256)
      const route = await quoteMarket(s, {
        network: '1',
        version: '6.2',
        srcToken: weth,
        destToken: usdc,
        srcDecimals: '18',
        destDecimals: '6',
        amount: (5n * 10n ** 17n).toString(),
        side: 'SELL',
        userAddress: user.account.address,
      })
      expect(route.bestRoute[0]?.swaps[0]?.swapExchanges[0]?.exchange).toBe('AugustusRFQ')
      const built = await buildMarketTransaction(s, 1, {
        priceRoute: route,
        srcToken: weth,
        destToken: usdc,
        userAddress: user.account.address,
        srcAmount: route.srcAmount,
        slippage: 50,
      })
      expect(built.status, built.text).toBe(200)
      const usdcBefore = await user.readContract({ address: usdc, abi: erc20Abi, functionName: 'balanceOf', args: [user.account.address] })
      const receipt = await broadcast(user, built.json as Envelope)
      expect(receipt.status).toBe('success')
      const usdcAfter = await user.readContract({ address: usdc, abi: erc20Abi, functionName: 'balanceOf', args: [user.account.address] })

      const journal = openJournal({ file: journalFile, clock: systemClock })
      try {
        let filled = journal.firmQuotesSince(0).find((quote) => quote.status === 'filled' || quote.status === 'partially-filled')
        for (let attempt = 0; filled === undefined && attempt < 100; attempt++) {
          await new Promise((resolve) => setTimeout(resolve, 100))
          filled = journal.firmQuotesSince(0).find((quote) => quote.status === 'filled' || quote.status === 'partially-filled')
        }
        expect(filled).toMatchObject({
          makerAsset: usdc.toLowerCase(),
          takerAsset: weth.toLowerCase(),
          user: user.account.address.toLowerCase(),
          filledTakerAmount: 5n * 10n ** 17n,
          filledMakerAmount: usdcAfter - usdcBefore,
          txHash: receipt.transactionHash.toLowerCase(),
        })
      } finally {
        journal.close()
      }
      maker.child.kill('SIGTERM')
      const { code, stdout } = await maker.finished
      expect(code).toBe(0)
      expect(JSON.parse(stdout.trim().split('\n')[1] ?? '')).toMatchObject({ summary: { firmQuotes: { total: 1 } } })
    }, 60_000)
  })
})
