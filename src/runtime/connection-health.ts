import type { ApiAttemptOutcome, ApiTransportEvent } from '../api/client.js'
import type { RpcCallEvent, RpcCallOutcome } from '../chain/chain-clients.js'
import { withoutUrls } from '../errors/url-secrets.js'
import type { Clock } from '../time/clock.js'

/** The venue (the API) or one chain (its RPC). */
export type ConnectionTarget = 'venue' | number

/** A target that has not answered for longer than the window: what GET /health names as the reason it fails. */
export type ConnectionProblem = {
  /** "venue" or "chain 8453". */
  target: string
  chainId: number | undefined
  /** ISO time of the start of the first call that failed since the last answer. */
  failingSince: string
  failingForMs: number
  /** Calls (RPC) or attempts (API) that failed since the last answer. */
  failures: number
  /** The last error's first line, without URLs (RPC URLs may hold keys). */
  lastError: string
}

export type ConnectionState = {
  target: string
  chainId: number | undefined
  up: boolean
  failingSince: string | null
  failures: number
  lastError: string | null
}

export type ConnectionHealth = {
  /** Feeds the venue's state from the API transport's attempts. */
  observeApi: (event: ApiTransportEvent) => void
  /** Feeds a chain's state from its RPC calls. */
  observeRpc: (event: RpcCallEvent) => void
  /** False once the chain's last two calls or more failed without an answer in between (true before its first call). */
  chainAvailable: (chainId: number) => boolean
  /** Chains paused (see chainAvailable), ascending. */
  unavailableChains: () => number[]
  /** Targets that have failed without an answer for longer than `unhealthyAfterMs`. */
  problems: () => ConnectionProblem[]
  /** Every known target, the venue first. */
  states: () => ConnectionState[]
  readonly unhealthyAfterMs: number
}

export type CreateConnectionHealthParameters = {
  /** Real time (the window is an operator's): the system clock in a bot. */
  clock: Clock
  /** The configured chains, known before their first call. */
  chainIds: readonly number[]
  /** How long a target may fail without one answer before it makes the bot unhealthy, ms. */
  unhealthyAfterMs: number
}

/** Unanswered calls in a row (no answer between them) after which a chain is paused. */
const pauseAfterFailures = 2

type TargetState = { failingSince: number | null; failures: number; lastError: string | null }

/** Outcomes where the venue answered (a refusal is an answer); the others are faults of the connection or the service. */
const apiAnswered: readonly ApiAttemptOutcome[] = ['ok', 'refused']
/** A JSON-RPC error is the node's answer (a revert, a nonce too low): the node is up. */
const rpcAnswered: readonly RpcCallOutcome[] = ['ok', 'rpc-error']

/**
 * Whether the venue and each chain answer, from what their transports report: a target fails from the start of the
 * first call that got no answer (a timeout, a refused connection, a 5xx or 429, a garbled answer) until one call
 * answers again. A chain that fails is paused by the bot; one failing longer than `unhealthyAfterMs` makes /health 503.
 */
export function createConnectionHealth({ clock, chainIds, unhealthyAfterMs }: CreateConnectionHealthParameters): ConnectionHealth {
  const targets = new Map<ConnectionTarget, TargetState>([['venue', emptyState()]])
  for (const chainId of chainIds) targets.set(chainId, emptyState())

  function stateOf(target: ConnectionTarget): TargetState {
    let state = targets.get(target)
    if (!state) {
      state = emptyState()
      targets.set(target, state)
    }
    return state
  }

  function record(target: ConnectionTarget, answered: boolean, durationMs: number, error: unknown): void {
    const state = stateOf(target)
    if (answered) {
      state.failingSince = null
      state.failures = 0
      return
    }
    state.failingSince ??= Math.round(clock.now() - Math.max(0, durationMs))
    state.failures += 1
    state.lastError = describeFailure(error)
  }

  const nameOf = (target: ConnectionTarget) => (target === 'venue' ? 'venue' : `chain ${target}`)

  return {
    unhealthyAfterMs,
    observeApi: (event) => {
      if (event.type !== 'attempt' || event.outcome === 'aborted') return
      record('venue', apiAnswered.includes(event.outcome), event.durationMs, event.error)
    },
    observeRpc: (event) => record(event.chainId, rpcAnswered.includes(event.outcome), event.durationMs, event.error),
    // One unanswered call is a blip (a slow moment of the node): a chain is paused from the second in a row.
    chainAvailable: (chainId) => (targets.get(chainId)?.failures ?? 0) < pauseAfterFailures,
    unavailableChains: () =>
      [...targets]
        .flatMap(([target, state]) => (target !== 'venue' && state.failures >= pauseAfterFailures ? [target] : []))
        .sort((a, b) => a - b),
    problems: () => {
      const now = clock.now()
      const problems: ConnectionProblem[] = []
      for (const [target, state] of targets) {
        if (state.failingSince === null || now - state.failingSince <= unhealthyAfterMs) continue
        problems.push({
          target: nameOf(target),
          chainId: target === 'venue' ? undefined : target,
          failingSince: new Date(state.failingSince).toISOString(),
          failingForMs: Math.round(now - state.failingSince),
          failures: state.failures,
          lastError: state.lastError ?? 'no answer',
        })
      }
      return problems
    },
    states: () =>
      [...targets].map(([target, state]) => ({
        target: nameOf(target),
        chainId: target === 'venue' ? undefined : target,
        up: state.failingSince === null,
        failingSince: state.failingSince === null ? null : new Date(state.failingSince).toISOString(),
        failures: state.failures,
        lastError: state.failingSince === null ? null : state.lastError,
      })),
  }
}

function emptyState(): TargetState {
  return { failingSince: null, failures: 0, lastError: null }
}

/**
 * The first line of an error, for /health: viem's and deltaflow's short message (neither holds the URL), with any URL
 * left in it reduced to "[url]" all the same (RPC URLs carry API keys in their path or query).
 */
export function describeFailure(error: unknown): string {
  const { shortMessage, details, status } = (error ?? {}) as { shortMessage?: unknown; details?: unknown; status?: unknown }
  let text = typeof shortMessage === 'string' ? shortMessage : error instanceof Error ? error.message : String(error)
  // viem's HTTP errors say only "HTTP request failed." there: the status or the cause ("fetch failed") is in these.
  if (typeof status === 'number' && !text.includes(String(status))) text += ` (status ${status})`
  else if (typeof details === 'string' && details !== '' && !text.includes(details)) text += ` (${details})`
  const line = withoutUrls(text.split('\n')[0] ?? '').trim()
  return line.length > 200 ? `${line.slice(0, 197)}...` : line
}
