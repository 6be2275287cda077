import type { Hex } from 'viem'
import { z } from 'zod'

export type RpcRequest = { method: 'eth_call' | 'eth_getCode'; params: readonly unknown[] }

type Pending = { request: RpcRequest; resolve: (value: Hex | undefined) => void; reject: (error: unknown) => void }

const answerSchema = z.array(
  z.object({
    id: z.number(),
    result: z
      .string()
      .regex(/^0x[0-9a-fA-F]*$/)
      .optional(),
    error: z.object({ code: z.number(), message: z.string() }).optional(),
  }),
)

const queues = new Map<string, Pending[]>()

/**
 * Read-only JSON-RPC calls that return hex (eth_call, eth_getCode). Calls made in the same turn of the event loop,
 * by one request or by many concurrent ones, travel in one batched HTTP round trip. A call the node answers with an
 * error (a revert) resolves to undefined.
 */
export function ethCalls(rpcUrl: string, requests: readonly RpcRequest[]): Promise<(Hex | undefined)[]> {
  let queue = queues.get(rpcUrl)
  if (!queue) {
    queue = []
    queues.set(rpcUrl, queue)
    setImmediate(() => flush(rpcUrl))
  }
  const pending = queue
  return Promise.all(
    requests.map((request) => new Promise<Hex | undefined>((resolve, reject) => pending.push({ request, resolve, reject }))),
  )
}

async function flush(rpcUrl: string): Promise<void> {
  const batch = queues.get(rpcUrl) ?? []
  queues.delete(rpcUrl)
  if (batch.length === 0) return
  try {
    const response = await fetch(rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(batch.map(({ request }, id) => ({ jsonrpc: '2.0', id, method: request.method, params: request.params }))),
    })
    if (!response.ok) throw new Error(`RPC ${rpcUrl} answered HTTP ${response.status}`)
    const answers = answerSchema.parse(await response.json())
    const byId = new Map(answers.map((answer) => [answer.id, answer]))
    for (const [id, pending] of batch.entries()) {
      const answer = byId.get(id)
      if (!answer) pending.reject(new Error(`RPC ${rpcUrl} left call ${id} (${pending.request.method}) unanswered`))
      else pending.resolve(answer.error ? undefined : (answer.result as Hex | undefined))
    }
  } catch (error) {
    for (const pending of batch) pending.reject(error)
  }
}
