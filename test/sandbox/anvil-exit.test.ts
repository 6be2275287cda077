import { chmodSync, writeFileSync } from 'node:fs'
import { afterAll, describe, expect, it } from 'vitest'
import { AnvilStartError } from '../../src/sandbox/chains/anvil.js'
import { startLocalChains } from '../../src/sandbox/chains/harness.js'
import { createTempDirectory } from '../helpers/temp-directory.js'

// A node that dies while the chain is being set up: the start fails at once with how it ended and what it printed
// last, instead of polling a dead port for receipts until viem's own timeout (minutes).

const directory = createTempDirectory('deltaflow-anvil-exit-')

/**
 * Stands in for the anvil binary: listens on loopback and announces it as anvil does, accepts connections and never
 * answers them (so no request fails on its own), prints a panic and exits with 101 after `lifeMs`.
 */
function writeDyingNode(lifeMs: number): string {
  const file = directory.path('dying-anvil.mjs')
  writeFileSync(
    file,
    `#!/usr/bin/env node
import { createServer } from 'node:net'
const server = createServer(() => {})
server.listen(0, '127.0.0.1', () => {
  console.log('Listening on 127.0.0.1:' + server.address().port)
  setTimeout(() => {
    console.error("thread 'main' panicked at crates/anvil/src/eth/backend/mem/mod.rs: storage lock poisoned")
    process.exit(101)
  }, ${lifeMs})
})
`,
  )
  chmodSync(file, 0o755)
  return file
}

describe('a node that ends during the set-up', () => {
  const previous = process.env.DELTAFLOW_ANVIL_BIN
  afterAll(() => {
    if (previous === undefined) delete process.env.DELTAFLOW_ANVIL_BIN
    else process.env.DELTAFLOW_ANVIL_BIN = previous
    directory.cleanup()
  })

  it('fails startLocalChains with the chain, the exit code and the node’s last output, well before any RPC timeout', async () => {
    process.env.DELTAFLOW_ANVIL_BIN = writeDyingNode(300)
    const started = Date.now()
    const error = await startLocalChains({ chainIds: [1] }).then(
      () => undefined,
      (caught: unknown) => caught,
    )
    const elapsed = Date.now() - started
    expect(error).toBeInstanceOf(AnvilStartError)
    const failure = error as AnvilStartError
    expect(failure.shortMessage).toBe('The anvil node of chain 1 ended while installing the sandbox contracts')
    expect(failure.details).toMatchObject({ code: 101, signal: null })
    expect(String(failure.details?.output)).toContain('storage lock poisoned')
    // viem gives up on an unanswered request after 10 s (and retries): the exit decides long before.
    expect(elapsed).toBeLessThan(9_000)
  })
})
