import { startLocalChains } from '../../src/sandbox/chains/harness.js'
import { loadContractArtifacts } from '../../src/sandbox/contracts/compile.js'
import { type BenchResult, summarize } from './summary.js'

/** Two chains (1 and 8453) from nothing to all contracts placed, initialised, pools seeded and accounts funded. */
export async function benchChainsUp(runs = 7): Promise<BenchResult> {
  loadContractArtifacts() // compile outside the timed part; a cold compile is reported separately by `npm run contracts`
  const samples: number[] = []
  for (let run = 0; run < runs; run++) {
    const started = performance.now()
    const chains = await startLocalChains({ chainIds: [1, 8453] })
    samples.push(performance.now() - started)
    await chains.stop()
  }
  return summarize('two chains up and funded', 'ms', samples, { target: '<= 3000 ms' })
}
