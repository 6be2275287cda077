import { Agent, request } from 'undici'
import {
  type Chain,
  createPublicClient,
  createTestClient,
  createWalletClient,
  custom,
  defineChain,
  HttpRequestError,
  publicActions,
  RpcRequestError,
  TimeoutError,
  type Transport,
} from 'viem'

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
  const transport: Transport = localNodeTransport(rpcUrl)
  return {
    chain,
    publicClient: createPublicClient({ chain, transport }),
    testClient: createTestClient({ chain, mode: 'anvil', transport }).extend(publicActions),
    walletClient: createWalletClient({ chain, transport }),
  }
}

export type LocalClients = ReturnType<typeof createLocalClients>

/** Connections to the local nodes, kept alive between calls. */
const localNodes = new Agent()

/** Requests sent in one JSON-RPC batch at most. */
const batchSize = 200
/** Real ms a local node has to answer. */
const requestTimeoutMs = 10_000

type PendingCall = {
  body: { jsonrpc: '2.0'; id: number; method: string; params?: unknown }
  resolve: (result: unknown) => void
  reject: (error: unknown) => void
}

/**
 * viem's transport for a local node: JSON-RPC over undici's pooled `request`, the calls made in one turn of the event
 * loop sent as one batch. The sandbox talks to its chains all the time (fills, pool refreshes, receipts, funds), and
 * viem's http transport spent ~0.6 ms of CPU and ~1.9 ms of latency on each call here (a WHATWG Request and Response,
 * an abort controller and an error built per call, a batch held for a timer); this one ~0.15 ms for both. Its errors
 * are viem's own (an RPC error as RpcRequestError, a failed or timed-out request as HttpRequestError or TimeoutError),
 * so viem maps them as it does for http.
 */
function localNodeTransport(rpcUrl: string): Transport {
  let nextId = 0
  let queued: PendingCall[] = []

  const flush = () => {
    const calls = queued
    queued = []
    for (let from = 0; from < calls.length; from += batchSize) void send(calls.slice(from, from + batchSize))
  }

  async function send(calls: PendingCall[]): Promise<void> {
    const body = calls.length === 1 ? (calls[0] as PendingCall).body : calls.map((call) => call.body)
    let answers: unknown
    try {
      const answer = await request(rpcUrl, {
        method: 'POST',
        body: JSON.stringify(body),
        headers: { 'content-type': 'application/json' },
        dispatcher: localNodes,
        headersTimeout: requestTimeoutMs,
        bodyTimeout: requestTimeoutMs,
      })
      const text = await answer.body.text()
      if (answer.statusCode < 200 || answer.statusCode > 299)
        throw new HttpRequestError({ body, url: rpcUrl, status: answer.statusCode, details: text.slice(0, 500) })
      answers = JSON.parse(text)
    } catch (error) {
      const failure =
        error instanceof HttpRequestError
          ? error
          : isUndiciTimeout(error)
            ? new TimeoutError({ body, url: rpcUrl })
            : new HttpRequestError({ body, url: rpcUrl, cause: error as Error, details: (error as Error).message })
      for (const call of calls) call.reject(failure)
      return
    }
    const byId = new Map<unknown, { result?: unknown; error?: { code: number; message: string; data?: unknown } }>()
    for (const answer of Array.isArray(answers) ? answers : [answers]) {
      if (typeof answer === 'object' && answer !== null && 'id' in answer) byId.set(answer.id, answer)
    }
    for (const call of calls) {
      const answer = byId.get(call.body.id)
      if (!answer) call.reject(new HttpRequestError({ body: call.body, url: rpcUrl, details: `no answer to request ${call.body.id}` }))
      else if (answer.error) call.reject(new RpcRequestError({ body: call.body, error: answer.error, url: rpcUrl }))
      else call.resolve(answer.result)
    }
  }

  return custom(
    {
      request: ({ method, params }: { method: string; params?: unknown }) =>
        new Promise((resolve, reject) => {
          if (queued.length === 0) setImmediate(flush)
          queued.push({ body: { jsonrpc: '2.0', id: ++nextId, method, ...(params === undefined ? {} : { params }) }, resolve, reject })
        }),
    },
    { key: 'local', name: 'Local node', retryCount: 0 },
  )
}

function isUndiciTimeout(error: unknown): boolean {
  return error instanceof Error && 'code' in error && (error.code === 'UND_ERR_HEADERS_TIMEOUT' || error.code === 'UND_ERR_BODY_TIMEOUT')
}
