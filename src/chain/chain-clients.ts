import {
  type Account,
  type Chain,
  createPublicClient,
  createWalletClient,
  defineChain,
  fallback,
  HttpRequestError,
  http,
  type PublicClient,
  TimeoutError,
  type Transport,
  type WalletClient,
} from 'viem'
import { z } from 'zod'
import { BaseError } from '../errors/base.js'
import { serviceChains } from './service-chains.js'

export const chainClientsConfigSchema = z.object({
  chains: z
    .array(
      z.object({
        chainId: z.number().int().positive(),
        /** Tried in order; the next one takes over when one fails. */
        rpcUrls: z.array(z.url({ protocol: /^https?$/ })).min(1),
      }),
    )
    .min(1),
  /** How often to poll for blocks and receipts. Default: viem's choice for the chain. */
  pollingIntervalMs: z.number().int().positive().optional(),
  /** Per-request timeout. Default 10 s. */
  timeoutMs: z.number().int().positive().optional(),
})

export type ChainClientsConfig = z.input<typeof chainClientsConfigSchema>

export type ChainClients = {
  chainId: number
  chain: Chain
  publicClient: PublicClient<Transport, Chain>
  /** Present when an account was given. */
  walletClient: WalletClient<Transport, Chain, Account> | undefined
}

export type CreateChainClientsParameters = ChainClientsConfig & {
  /** The account that signs and sends on every chain. */
  account?: Account | undefined
  /** Told how every RPC call ended, per chain (metrics, health); a throwing observer is ignored. */
  observer?: RpcCallObserver | undefined
}

/**
 * How one RPC call ended, after viem's retries and the fallback across URLs: `ok`; `rpc-error`, the node answered with
 * a JSON-RPC error (a revert, a nonce too low: the node is up); or the fault that left it without an answer: `timeout`,
 * `http` (a status other than 2xx), `network` (refused or dropped connection).
 */
export type RpcCallOutcome = 'ok' | 'rpc-error' | 'timeout' | 'http' | 'network'

export type RpcCallEvent = {
  chainId: number
  method: string
  outcome: RpcCallOutcome
  /** The HTTP status of an `http` outcome. */
  status: number | undefined
  /** Real milliseconds the call took, retries included. */
  durationMs: number
  /** The error of every outcome but `ok` (its message may hold the RPC URL: never log or show it as it is). */
  error: unknown
}

export type RpcCallObserver = (event: RpcCallEvent) => void

/**
 * A public client (and a wallet client for `account`) per configured chain, each over a fallback transport across
 * the chain's RPC URLs. Known chain ids keep viem's chain metadata (native currency, formatters); the RPC URLs are
 * always the configured ones. RPC URLs may embed credentials: they are never logged or put into errors here.
 */
export function createChainClients(parameters: CreateChainClientsParameters): ReadonlyMap<number, ChainClients> {
  const { account, ...rest } = parameters
  const config = chainClientsConfigSchema.parse(rest)
  const clients = new Map<number, ChainClients>()
  for (const { chainId, rpcUrls } of config.chains) {
    if (clients.has(chainId)) throw new ChainConfigurationError(`chain ${chainId} is configured twice`)
    const chain = defineChainFor(chainId, rpcUrls)
    const timeout = config.timeoutMs ?? 10_000
    const transports = rpcUrls.map((url) => http(url, { timeout, retryCount: 1 }))
    const each = transports.length === 1 && transports[0] ? transports[0] : fallback(transports, { retryCount: 1 })
    const { observer } = parameters
    const transport = observer ? observedTransport(each, chainId, observer) : each
    const pollingInterval = config.pollingIntervalMs === undefined ? {} : { pollingInterval: config.pollingIntervalMs }
    clients.set(chainId, {
      chainId,
      chain,
      publicClient: createPublicClient({ chain, transport, ...pollingInterval }),
      walletClient: account ? createWalletClient({ account, chain, transport, ...pollingInterval }) : undefined,
    })
  }
  return clients
}

/** `transport` with the outcome of every call told to `observer`. */
function observedTransport(transport: Transport, chainId: number, observer: RpcCallObserver): Transport {
  const tell = (event: RpcCallEvent) => {
    try {
      observer(event)
    } catch {
      // An observer's failure must not fail the call it watches.
    }
  }
  return (parameters) => {
    const inner = transport(parameters)
    // viem types `request` per method; the wrapper passes every call through unchanged.
    const request = (async (args: { method: string }, options?: Parameters<typeof inner.request>[1]) => {
      const started = performance.now()
      try {
        const result: unknown = await inner.request(args as Parameters<typeof inner.request>[0], options)
        tell({ chainId, method: args.method, outcome: 'ok', status: undefined, durationMs: performance.now() - started, error: undefined })
        return result
      } catch (error) {
        const { outcome, status } = rpcOutcomeOf(error)
        tell({ chainId, method: args.method, outcome, status, durationMs: performance.now() - started, error })
        throw error
      }
    }) as typeof inner.request
    return { ...inner, request }
  }
}

function rpcOutcomeOf(error: unknown): { outcome: Exclude<RpcCallOutcome, 'ok'>; status: number | undefined } {
  const seen = new Set<unknown>()
  for (let current: unknown = error; current instanceof Error && !seen.has(current); current = current.cause) {
    seen.add(current)
    if (current instanceof TimeoutError) return { outcome: 'timeout', status: undefined }
    if (current instanceof HttpRequestError)
      return current.status ? { outcome: 'http', status: current.status } : { outcome: 'network', status: undefined }
    if (typeof (current as { code?: unknown }).code === 'number') return { outcome: 'rpc-error', status: undefined }
  }
  return { outcome: 'network', status: undefined }
}

/** The clients of one chain; a chain missing from the configuration is a ChainConfigurationError. */
export function requireChainClients(clients: ReadonlyMap<number, ChainClients>, chainId: number): ChainClients {
  const found = clients.get(chainId)
  if (!found) {
    throw new ChainConfigurationError(`chain ${chainId} has no RPC configured`, {
      configured: [...clients.keys()].join(', ') || 'none',
    })
  }
  return found
}

function defineChainFor(chainId: number, rpcUrls: string[]): Chain {
  const known = serviceChains[chainId]
  return defineChain({
    id: chainId,
    name: known?.name ?? `chain ${chainId}`,
    nativeCurrency: known?.nativeCurrency ?? { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: rpcUrls } },
  })
}

/**
 * The chain configuration cannot serve a request (a chain without RPC URLs, a chain listed twice). Fatal for the
 * unit of work: the user fixes the configuration.
 */
export class ChainConfigurationError extends BaseError {
  override name = 'ChainConfigurationError' as const
  constructor(shortMessage: string, details: Record<string, unknown> = {}) {
    super(`Chain configuration: ${shortMessage}`, {
      details,
      hint: 'Add the chain with its rpcUrls to the configuration (chains: [{ chainId, rpcUrls }]).',
      errorClass: 'fatal',
    })
  }
}
