import { fork } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import autocannon from 'autocannon'
import type { Address } from 'viem'
import { localAccount } from '../../src/chain/local-account.js'
import { MakerBook } from '../../src/maker/maker-book.js'
import { type MakerServer, startMakerServer } from '../../src/maker/server/maker-server.js'
import { type MakerCredentials, makerAuthHeaders } from '../../src/protocol/maker-auth.js'
import type { MakerToken } from '../../src/protocol/maker-wire.js'
import { developmentAccounts } from '../../src/sandbox/chains/accounts.js'
import { systemClock } from '../../src/time/clock.js'
import type { BenchResult } from './summary.js'

// The maker server under load, with authentication on: every request is signed freshly in autocannon's
// setupRequest (a replayed signature is refused, so none may repeat). The server runs in its own process, so that
// it and the load generator each have a core, as a maker and the service would.

export const benchMakerTokens = {
  WETH: token('WETH', '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2', 18),
  USDC: token('USDC', '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48', 6),
}

/**
 * Several service domains: the same GET signed twice in one millisecond is a replay, and one domain can only sign one
 * distinct /prices request per millisecond; the load is spread over domains rather than over fake timestamps.
 */
export const benchCredentials: MakerCredentials[] = Array.from({ length: 16 }, (_, index) => ({
  domain: `bench-${index}.test`,
  accessKey: `bench-access-${index}`,
  secret: `bench-secret-${index}-${'s'.repeat(24)}`,
}))

const basePath = '/maker/1'

/** A maker server on loopback over a WETH/USDC book of ten levels a side, auth on, real time. */
export async function startBenchMakerServer(): Promise<MakerServer> {
  const book = new MakerBook([1])
  const levels = (from: number, step: number) =>
    Array.from({ length: 10 }, (_, index) => [(from + step * index).toFixed(2), (1 + index).toFixed(4)] as const)
  book.update(
    1,
    {
      tokens: benchMakerTokens,
      pairs: { 'WETH/USDC': { base: 'WETH', quote: 'USDC', liquidityUSD: 1_000_000 } },
      prices: { 'WETH/USDC': { bids: levels(1999.5, -0.75), asks: levels(2000.5, 0.75) } },
    },
    systemClock.now(),
  )
  return startMakerServer({
    book,
    chains: [{ chainId: 1, basePath, rfq: '0xe92b586627ccA7a83dC919cc7127196d70f55a06' as Address }],
    account: localAccount((developmentAccounts[1] as { privateKey: `0x${string}` }).privateKey),
    clock: systemClock,
    auth: { credentials: benchCredentials },
  })
}

const serverRoleVariable = 'DELTAFLOW_BENCH_MAKER_SERVER'

// This module is also the server process's entry: it serves until its parent says stop (or goes away).
if (process.env[serverRoleVariable] === '1' && process.send !== undefined) {
  const server = await startBenchMakerServer()
  const stop = async () => {
    await server.close()
    process.disconnect()
  }
  process.once('message', stop)
  process.once('disconnect', () => process.exit(0))
  process.send({ url: server.url })
}

/** The bench maker server in its own process: its origin, and how to stop it. */
export async function startBenchMakerServerProcess(): Promise<{ url: string; close: () => Promise<void> }> {
  const child = fork(fileURLToPath(import.meta.url), [], {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, [serverRoleVariable]: '1' },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  })
  const url = await new Promise<string>((resolve, reject) => {
    child.once('message', (message: { url: string }) => resolve(message.url))
    child.once('error', reject)
    child.once('exit', (code) => reject(new Error(`the bench maker server exited with ${code}`)))
  })
  return {
    url,
    close: async () => {
      const exited = new Promise((resolve) => child.once('exit', resolve))
      child.send('stop')
      await exited
    },
  }
}

/** Signs each request afresh: domains round-robin, each domain's timestamps strictly increasing. */
export function createRequestSigner() {
  const lastTimestamp = new Map<string, number>()
  let turn = 0
  return (method: string, path: string, body?: string) => {
    const credentials = benchCredentials[turn++ % benchCredentials.length] as MakerCredentials
    const nowMs = Math.max(Date.now(), (lastTimestamp.get(credentials.domain) ?? 0) + 1)
    lastTimestamp.set(credentials.domain, nowMs)
    return makerAuthHeaders(credentials, { nowMs, method, path, body })
  }
}

export type LoadResult = autocannon.Result

/** Runs autocannon against `url` for `durationSeconds` after a 1 s warm-up. */
export async function runLoad(url: string, connections: number, durationSeconds: number, request: autocannon.Request): Promise<LoadResult> {
  const run = (duration: number) => autocannon({ url, connections, duration, requests: [request] })
  await run(1)
  return run(durationSeconds)
}

export function loadFigures(name: string, unit: string, target: string, connections: number, result: LoadResult): BenchResult {
  if (result.non2xx > 0 || result.errors > 0 || result.timeouts > 0) {
    throw new Error(`${name}: ${result.non2xx} non-2xx answers, ${result.errors} errors, ${result.timeouts} timeouts`)
  }
  return {
    name,
    unit,
    runs: Math.round(result.duration),
    min: result.requests.min,
    // Per-second samples of the run: the median second, its 99th percentile, the slowest and the fastest.
    median: result.requests.p50,
    p99: result.requests.p99,
    max: result.requests.max,
    notes: {
      target,
      average: `${Math.round(result.requests.average)}/s over ${Math.round(result.duration)} s`,
      connections: String(connections),
      requests: String(result.requests.total),
      'latency p50': `${result.latency.p50} ms`,
      'latency p99': `${result.latency.p99} ms`,
      'non-2xx': String(result.non2xx),
    },
  }
}

/** GET /prices with authentication: 32 connections for 10 s; the figure is requests per second. */
export async function benchMakerPrices({ connections = 32, durationSeconds = 10 } = {}): Promise<BenchResult> {
  const server = await startBenchMakerServerProcess()
  try {
    const sign = createRequestSigner()
    const path = `${basePath}/prices`
    const result = await runLoad(server.url, connections, durationSeconds, {
      method: 'GET',
      path,
      setupRequest: (request) => ({ ...request, headers: { ...request.headers, ...sign('GET', path) } }),
    })
    return loadFigures('maker GET /prices throughput (auth on)', 'req/s', '>= 5000 req/s', connections, result)
  } finally {
    await server.close()
  }
}

function token(symbol: string, address: Address, decimals: number): MakerToken {
  return { symbol, name: symbol, description: symbol, address, decimals, type: 'ERC20' }
}
