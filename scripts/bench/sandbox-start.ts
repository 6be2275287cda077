import { loadContractArtifacts } from '../../src/sandbox/contracts/compile.js'
import { startSandbox } from '../../src/sandbox/start-sandbox.js'
import { type BenchResult, summarize } from './summary.js'

/** `startSandbox` with two chains, from nothing to the HTTP server answering, desks started. */
export async function benchSandboxStart(runs = 5): Promise<BenchResult> {
  loadContractArtifacts()
  const samples: number[] = []
  for (let run = 0; run < runs; run++) {
    const started = performance.now()
    const sandbox = await startSandbox({ chainIds: [1, 8453] })
    const response = await fetch(`${sandbox.url}/resources/contracts.json`)
    if (!response.ok) throw new Error(`sandbox answered ${response.status}`)
    samples.push(performance.now() - started)
    await sandbox.stop()
  }
  return summarize('sandbox start, two chains', 'ms', samples, { target: '<= 5000 ms' })
}
