import autocannon from 'autocannon'
import { parseEther } from 'viem'
import { loadContractArtifacts } from '../../src/sandbox/contracts/compile.js'
import { startSandbox } from '../../src/sandbox/start-sandbox.js'
import type { BenchResult } from './summary.js'

/**
 * GET /prices throughput of a default sandbox (two chains, replayed market): 32 connections for 5 s after a warm-up,
 * one 1-hop and one 2-hop pair alternating. The figure is requests per second.
 */
export async function benchSandboxPrices({ connections = 32, durationSeconds = 5 } = {}): Promise<BenchResult> {
  loadContractArtifacts()
  const sandbox = await startSandbox({ chainIds: [1, 8453] })
  try {
    const paths = [
      `/prices?${new URLSearchParams({ srcToken: 'ETH', destToken: 'USDC', amount: parseEther('1').toString(), version: '6.2' })}`,
      `/prices?${new URLSearchParams({ srcToken: 'DAI', destToken: 'WBTC', amount: parseEther('1000').toString(), version: '6.2', network: '8453' })}`,
    ]
    const requests = paths.map((path) => ({ method: 'GET' as const, path }))
    const run = (duration: number) => autocannon({ url: sandbox.url, connections, duration, requests })
    await run(1) // warm-up: gas calibration, JIT, connection setup
    const result = await run(durationSeconds)
    if (result.non2xx > 0 || result.errors > 0) {
      throw new Error(`GET /prices failed under load: ${result.non2xx} non-2xx answers, ${result.errors} errors`)
    }
    return {
      name: 'sandbox GET /prices throughput',
      unit: 'req/s',
      runs: Math.round(result.duration),
      min: result.requests.min,
      median: result.requests.average,
      p99: result.requests.p99,
      max: result.requests.max,
      notes: {
        target: '>= 2000 req/s',
        connections: String(connections),
        'latency p50': `${result.latency.p50} ms`,
        'latency p99': `${result.latency.p99} ms`,
      },
    }
  } finally {
    await sandbox.stop()
  }
}
