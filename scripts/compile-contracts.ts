// Compiles the sandbox contracts (or reads them from the cache) and lists what was built.
import { loadContractArtifacts } from '../src/sandbox/contracts/compile.js'

const started = performance.now()
const artifacts = loadContractArtifacts()
for (const [name, artifact] of Object.entries(artifacts)) {
  console.log(`${name.padEnd(28)} runtime ${((artifact.deployedBytecode.length - 2) / 2).toString().padStart(6)} bytes`)
}
console.log(`${Object.keys(artifacts).length} contracts in ${Math.round(performance.now() - started)} ms`)
