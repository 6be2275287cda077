import { describe, expect, it } from 'vitest'
import type { RpcCallOutcome } from '../../src/chain/chain-clients.js'
import { createConnectionHealth } from '../../src/runtime/connection-health.js'

describe('connection health', () => {
  const call = (outcome: RpcCallOutcome) => ({
    chainId: 8453,
    method: 'eth_blockNumber',
    outcome,
    status: undefined,
    durationMs: 5,
    error: outcome === 'ok' ? undefined : new Error('fetch failed at http://127.0.0.1:8545/key-1'),
  })

  it('pauses a chain from its second unanswered call in a row, not for one blip, and resumes at its next answer', () => {
    let now = 1_000_000
    const health = createConnectionHealth({ clock: { now: () => now }, chainIds: [1, 8453], unhealthyAfterMs: 1_000 })
    health.observeRpc(call('timeout'))
    expect(health.chainAvailable(8453)).toBe(true)
    health.observeRpc(call('ok'))
    health.observeRpc(call('network'))
    expect(health.unavailableChains()).toEqual([])
    health.observeRpc(call('network'))
    expect(health.chainAvailable(8453)).toBe(false)
    expect(health.unavailableChains()).toEqual([8453])
    expect(health.chainAvailable(1)).toBe(true)
    now += 2_000
    expect(health.problems()).toMatchObject([{ target: 'chain 8453', chainId: 8453, failures: 2 }])
    expect(JSON.stringify(health.problems())).not.toContain('key-1')
    // A JSON-RPC error is the node's answer: the node is up.
    health.observeRpc(call('rpc-error'))
    expect(health.chainAvailable(8453)).toBe(true)
    expect(health.problems()).toEqual([])
  })
})
