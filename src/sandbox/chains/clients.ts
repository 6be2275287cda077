import { type Chain, createPublicClient, createTestClient, createWalletClient, defineChain, http, publicActions } from 'viem'

/** A viem chain for a local node: same chain id as production, loopback RPC. */
export function defineLocalChain(chainId: number, rpcUrl: string): Chain {
  return defineChain({
    id: chainId,
    name: `local-${chainId}`,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  })
}

/** Clients the harness uses on one local chain: reads, anvil cheatcodes and unlocked-account sends. */
export function createLocalClients(chainId: number, rpcUrl: string) {
  const chain = defineLocalChain(chainId, rpcUrl)
  const transport = http(rpcUrl, { batch: { batchSize: 200, wait: 0 }, retryCount: 0 })
  return {
    chain,
    publicClient: createPublicClient({ chain, transport }),
    testClient: createTestClient({ chain, mode: 'anvil', transport }).extend(publicActions),
    walletClient: createWalletClient({ chain, transport }),
  }
}

export type LocalClients = ReturnType<typeof createLocalClients>
