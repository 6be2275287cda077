import { createPublicClient, createTestClient, createWalletClient, http, publicActions } from 'viem'
import { z } from 'zod'
import { defineLocalChain, type LocalClients } from '../../src/sandbox/chains/clients.js'

/** One JSON-RPC request as viem sends it (no batching on these clients). */
export type RpcCall = { method: string; params?: unknown }

/** Sends the request on to the node: resolves once the node has answered (it has run the request by then). */
export type ForwardRpc = () => Promise<Response>

/** Decides when a request reaches the node and when its answer reaches the client: the faults of a busy node. */
export type RpcInterceptor = (call: RpcCall, forward: ForwardRpc) => Promise<Response>

const rpcCallSchema = z.object({ method: z.string(), params: z.unknown().optional() })

/**
 * The sandbox's clients for a local node (as createLocalClients makes them), with every request passing through
 * `intercept`: a test can hold a request back, or hold the node's answer back, to force an order of events that a
 * starved machine produces now and then.
 */
export function interceptedClients(chainId: number, rpcUrl: string, intercept: RpcInterceptor): LocalClients {
  const chain = defineLocalChain(chainId, rpcUrl)
  const transport = http(rpcUrl, {
    retryCount: 0,
    fetchFn: async (input, init) => {
      const body: unknown = JSON.parse(String(init?.body))
      const call = rpcCallSchema.parse(body)
      return intercept(call, () => fetch(input, init))
    },
  })
  return {
    chain,
    publicClient: createPublicClient({ chain, transport }),
    testClient: createTestClient({ chain, mode: 'anvil', transport }).extend(publicActions),
    walletClient: createWalletClient({ chain, transport }),
  }
}

/** One request straight to the node, past any interceptor (a test's own cheat codes). */
export async function nodeRequest(rpcUrl: string, method: string, params: readonly unknown[] = []): Promise<unknown> {
  const response = await fetch(rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  })
  const answer = z
    .object({ result: z.unknown().optional(), error: z.object({ message: z.string() }).optional() })
    .parse(await response.json())
  if (answer.error) throw new Error(`${method} failed on ${rpcUrl}: ${answer.error.message}`)
  return answer.result
}
