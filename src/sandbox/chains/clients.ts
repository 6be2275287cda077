import { Agent, request } from 'undici'
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
  const transport = http(rpcUrl, { batch: { batchSize: 200, wait: 0 }, retryCount: 0, fetchFn: localFetch })
  return {
    chain,
    publicClient: createPublicClient({ chain, transport }),
    testClient: createTestClient({ chain, mode: 'anvil', transport }).extend(publicActions),
    walletClient: createWalletClient({ chain, transport }),
  }
}

export type LocalClients = ReturnType<typeof createLocalClients>

/** Connections to the local nodes, kept alive between calls (as the global fetch's are). */
const localNodes = new Agent()

/**
 * viem's fetch for a local node, on undici's pooled `request`: the sandbox polls its chains several times a second,
 * and WHATWG fetch (a Request, web streams and abort listeners per call) made an idle two-chain sandbox spend about
 * 18 % of a core; this one about 12 %. Same contract as fetch for viem: the JSON-RPC body POSTed, the answer's status,
 * content type and text; a failed connection or an aborted signal rejects, which viem reports as for fetch.
 */
async function localFetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const url = typeof input === 'string' || input instanceof URL ? input : input.url
  const answer = await request(url, {
    method: 'POST',
    body: typeof init?.body === 'string' ? init.body : null,
    headers: { 'content-type': 'application/json' },
    signal: init?.signal ?? null,
    dispatcher: localNodes,
  })
  const text = await answer.body.text()
  const contentType = answer.headers['content-type']
  return new Response(text, {
    status: answer.statusCode,
    headers: typeof contentType === 'string' ? { 'content-type': contentType } : {},
  })
}
