import { afterEach, beforeEach } from 'vitest'
import type { TestChain } from './chain.js'

/** Runs every test of the surrounding describe block on an anvil snapshot taken after its beforeAll hooks. */
export function useSnapshotPerTest(chain: () => TestChain): void {
  let id: `0x${string}` | undefined
  beforeEach(async () => {
    id = await chain().testClient.snapshot()
  })
  afterEach(async () => {
    if (id) await chain().testClient.revert({ id })
    id = undefined
  })
}
