import { HttpRequestError, MethodNotFoundRpcError, RpcRequestError } from 'viem'
import { describe, expect, it } from 'vitest'
import { createLocalClients } from '../../src/sandbox/chains/clients.js'
import { followNewHeads } from '../../src/sandbox/chains/new-heads.js'
import { useTestChain } from '../helpers/chain.js'
import { waitFor } from '../helpers/wait-for.js'

// The sandbox's own ways of talking to its nodes: the clients' transport (JSON-RPC over undici, a turn's calls as one
// batch) and the newHeads subscription the chain venue follows instead of polling the head.

describe('local node clients', () => {
  const chain = useTestChain()

  it('answers calls made together, each with its own result, as one batch does', async () => {
    const { publicClient, testClient, anvil } = chain()
    const start = await publicClient.getBlockNumber({ cacheTime: 0 })
    await testClient.mine({ blocks: 3 })
    const [block, chainId, balance, same] = await Promise.all([
      publicClient.getBlockNumber({ cacheTime: 0 }),
      publicClient.getChainId(),
      publicClient.getBalance({ address: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266' }),
      createLocalClients(31_337, anvil.rpcUrl).publicClient.getBlockNumber({ cacheTime: 0 }),
    ])
    expect(block).toBe(start + 3n)
    expect(same).toBe(block)
    expect(chainId).toBe(31_337)
    expect(balance).toBeGreaterThan(0n)
  })

  it("reports a node's JSON-RPC error and a failed connection as viem's own errors", async () => {
    const { publicClient } = chain()
    const unknown = await publicClient.request({ method: 'deltaflow_noSuchMethod' } as never).catch((error: unknown) => error)
    expect(unknown).toBeInstanceOf(MethodNotFoundRpcError)
    expect((unknown as MethodNotFoundRpcError).walk((cause) => cause instanceof RpcRequestError)).toBeInstanceOf(RpcRequestError)

    // A port nobody listens on: the connection is refused.
    const closed = createLocalClients(31_337, 'http://127.0.0.1:9')
    const refused = await closed.publicClient.getBlockNumber({ cacheTime: 0 }).catch((error: unknown) => error)
    expect(refused).toBeInstanceOf(HttpRequestError)
    expect((refused as HttpRequestError).url).toBe('http://127.0.0.1:9')
  })

  it('hears each new block through the newHeads subscription, and nothing once closed', async () => {
    const { publicClient, testClient, anvil } = chain()
    const heard: bigint[] = []
    const heads = followNewHeads({ rpcUrl: anvil.rpcUrl, onHead: (block) => heard.push(block) })
    try {
      const start = await publicClient.getBlockNumber({ cacheTime: 0 })
      // Mined until one is heard: the subscription may not be in place yet for the first block.
      for (let attempt = 0; heard.length === 0 && attempt < 100; attempt++) {
        await testClient.mine({ blocks: 1 })
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
      expect(heard.length).toBeGreaterThan(0)
      const before = heard.length
      const latest = await publicClient.getBlockNumber({ cacheTime: 0 })
      await testClient.mine({ blocks: 2 })
      await waitFor('two more blocks announced', () => (heard.length >= before + 2 ? true : undefined), 15_000, 10)
      expect(heard.slice(before)).toEqual([latest + 1n, latest + 2n])
      expect(heard.every((block) => block > start)).toBe(true)
    } finally {
      heads.close()
    }
    const count = heard.length
    await testClient.mine({ blocks: 1 })
    await new Promise((resolve) => setTimeout(resolve, 200))
    expect(heard.length).toBe(count)
  })
})
