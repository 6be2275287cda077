// Started as a separate process by the harness tests: starts one anvil node, prints its port, then waits to be killed.
import { startAnvil } from '../../src/sandbox/chains/anvil.js'

const node = await startAnvil({ chainId: 1 })
process.stdout.write(`${JSON.stringify({ port: node.port })}\n`)
setInterval(() => {}, 60_000)
