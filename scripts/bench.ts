// Benchmarks: `npm run bench` prints one line per figure; `--json` prints the raw results.
import { benchChainsUp } from './bench/chains.js'
import { benchSandboxStart } from './bench/sandbox-start.js'
import { formatBench } from './bench/summary.js'

const results = [await benchChainsUp(), await benchSandboxStart()]
if (process.argv.includes('--json')) console.log(JSON.stringify(results, null, 2))
else for (const result of results) console.log(formatBench(result))
