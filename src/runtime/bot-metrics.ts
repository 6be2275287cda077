import { Counter, Gauge, Histogram, Registry } from 'prom-client'
import type { ApiTransportEvent } from '../api/client.js'
import type { RpcCallEvent } from '../chain/chain-clients.js'
import type { Journal } from '../journal/journal.js'
import type { ReconcileReport } from '../journal/reconcile/reconcile-report.js'
import type { StrategyStats } from '../strategy/safe-strategy.js'
import type { ConnectionHealth } from './connection-health.js'

/** What the bot reports as it works; `createBotMetrics` turns it into Prometheus series. */
export type BotMetrics = {
  quote: (source: string, latencyMs: number) => void
  quoteError: () => void
  execution: (kind: string, status: string, durationMs: number) => void
  executionError: () => void
  reconcile: (durationMs: number, ok: boolean) => void
  /** A pass's failed reads (by endpoint or chain), the chains it left out, and the fill figures the chain contradicted. */
  reconcileReport: (report: Pick<ReconcileReport, 'readErrors' | 'skipped' | 'mismatches'>) => void
  delivered: (type: 'orderUpdate' | 'fill' | 'refund' | 'timer' | 'balances') => void
  handler: (strategy: string, outcome: string, durationMs: number) => void
}

export type PrometheusBotMetrics = BotMetrics & {
  /** Counts API attempts by endpoint and outcome, and retries by reason (give it to the API client's `observe`). */
  observeApi: (event: ApiTransportEvent) => void
  /** Counts RPC calls by chain and outcome (give it to the chain clients' observer). */
  observeRpc: (event: RpcCallEvent) => void
  registry: Registry
  /** The text exposition of every series (GET /metrics). */
  render: () => Promise<string>
}

const secondsBuckets = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]

/**
 * Prometheus series of one bot, in a registry of its own: counters and latency histograms fed by the bot, and gauges
 * read when scraped (orders by status from the journal, strategies' failures and pauses).
 */
export function createBotMetrics({
  journal,
  strategies,
  connections,
}: {
  journal: Pick<Journal, 'orderCounts'>
  strategies: () => Record<string, StrategyStats>
  /** Whether the venue and each chain answer, read when scraped. */
  connections?: Pick<ConnectionHealth, 'states'> | undefined
}): PrometheusBotMetrics {
  const registry = new Registry()
  const registers = [registry]
  const quotes = new Counter({ name: 'deltaflow_quotes_total', help: 'Quotes received, by source', labelNames: ['source'], registers })
  const quoteErrors = new Counter({ name: 'deltaflow_quote_errors_total', help: 'Quote polls that failed', registers })
  const quoteLatency = new Histogram({
    name: 'deltaflow_quote_latency_seconds',
    help: 'Time from sending a quote request to its answer',
    labelNames: ['source'],
    buckets: secondsBuckets,
    registers,
  })
  const intents = new Counter({
    name: 'deltaflow_intents_total',
    help: 'Intents executed, by kind and outcome (accepted, refused, failed, done)',
    labelNames: ['kind', 'status'],
    registers,
  })
  const executionLatency = new Histogram({
    name: 'deltaflow_execution_seconds',
    help: 'Time from an intent reaching the executor to its outcome (signing and submission included)',
    labelNames: ['kind'],
    buckets: secondsBuckets,
    registers,
  })
  const errors = new Counter({
    name: 'deltaflow_errors_total',
    help: 'Errors the bot contained, by where they happened',
    labelNames: ['where'],
    registers,
  })
  const reconcileLatency = new Histogram({
    name: 'deltaflow_reconcile_seconds',
    help: 'Duration of a reconciliation pass',
    buckets: secondsBuckets,
    registers,
  })
  const delivered = new Counter({
    name: 'deltaflow_deliveries_total',
    help: 'Events delivered to strategies (order updates, fills, refunds, timers, balances)',
    labelNames: ['type'],
    registers,
  })
  const handlerLatency = new Histogram({
    name: 'deltaflow_strategy_handler_seconds',
    help: 'Duration of a strategy handler, by strategy and outcome',
    labelNames: ['strategy', 'outcome'],
    buckets: secondsBuckets,
    registers,
  })
  const apiRequests = new Counter({
    name: 'deltaflow_api_requests_total',
    help: 'HTTP requests to the venue (each attempt), by endpoint and outcome (ok, refused, rate-limited, server-error, timeout, network, malformed, aborted)',
    labelNames: ['endpoint', 'outcome'],
    registers,
  })
  const apiRetries = new Counter({
    name: 'deltaflow_api_retries_total',
    help: 'Venue requests tried again, by endpoint and reason (429, 5xx, timeout, network, malformed)',
    labelNames: ['endpoint', 'reason'],
    registers,
  })
  const rpcCalls = new Counter({
    name: 'deltaflow_rpc_calls_total',
    help: 'RPC calls (after retries and fallbacks), by chain and outcome (ok, rpc-error, timeout, http, network)',
    labelNames: ['chain', 'outcome'],
    registers,
  })
  const rpcErrors = new Counter({
    name: 'deltaflow_rpc_errors_total',
    help: 'RPC calls that failed, by chain and kind (rpc-error: the node answered with an error; timeout, http, network: no answer)',
    labelNames: ['chain', 'kind'],
    registers,
  })
  const reconcileReadErrors = new Counter({
    name: 'deltaflow_reconcile_read_errors_total',
    help: 'Reads that failed during reconciliation: venue reads by endpoint, chain reads by chain',
    labelNames: ['source', 'endpoint', 'chain'],
    registers,
  })
  const reconcileSkips = new Counter({
    name: 'deltaflow_reconcile_skipped_total',
    help: 'Reconciliation passes that left a chain out because its RPC did not answer, by chain',
    labelNames: ['chain'],
    registers,
  })
  new Gauge({
    name: 'deltaflow_connection_up',
    help: '1 while the venue or the chain answers, 0 from the first call it left unanswered until it answers again',
    labelNames: ['target', 'chain'],
    registers,
    collect() {
      this.reset()
      for (const state of connections?.states() ?? []) {
        const labels = state.chainId === undefined ? { target: 'venue' } : { target: 'chain', chain: String(state.chainId) }
        this.set(labels, state.up ? 1 : 0)
      }
    },
  })
  new Gauge({
    name: 'deltaflow_orders',
    help: 'Journaled orders by strategy, mode and status',
    labelNames: ['strategy', 'mode', 'status'],
    registers,
    collect() {
      this.reset()
      for (const row of journal.orderCounts()) this.set({ strategy: row.strategy, mode: row.mode, status: row.status }, row.count)
    },
  })
  new Gauge({
    name: 'deltaflow_strategy_failures',
    help: 'Handler failures of each strategy since start',
    labelNames: ['strategy'],
    registers,
    collect() {
      for (const [name, stats] of Object.entries(strategies())) this.set({ strategy: name }, stats.failures)
    },
  })
  new Gauge({
    name: 'deltaflow_strategy_paused',
    help: '1 while a strategy is paused after repeated failures',
    labelNames: ['strategy'],
    registers,
    collect() {
      for (const [name, stats] of Object.entries(strategies())) this.set({ strategy: name }, stats.paused ? 1 : 0)
    },
  })

  return {
    registry,
    render: () => registry.metrics(),
    quote: (source, latencyMs) => {
      quotes.inc({ source })
      quoteLatency.observe({ source }, latencyMs / 1000)
    },
    quoteError: () => {
      quoteErrors.inc()
      errors.inc({ where: 'quote' })
    },
    execution: (kind, status, durationMs) => {
      intents.inc({ kind, status })
      executionLatency.observe({ kind }, durationMs / 1000)
    },
    executionError: () => errors.inc({ where: 'execution' }),
    reconcile: (durationMs, ok) => {
      reconcileLatency.observe(durationMs / 1000)
      if (!ok) errors.inc({ where: 'reconcile' })
    },
    reconcileReport: ({ readErrors, skipped }) => {
      for (const error of readErrors) {
        if (error.source === 'venue') reconcileReadErrors.inc({ source: 'venue', endpoint: error.endpoint })
        else reconcileReadErrors.inc({ source: 'chain', chain: String(error.chainId) })
      }
      for (const chainId of skipped.chains) reconcileSkips.inc({ chain: String(chainId) })
    },
    observeApi: (event) => {
      if (event.type === 'attempt') apiRequests.inc({ endpoint: event.endpoint, outcome: event.outcome })
      else apiRetries.inc({ endpoint: event.endpoint, reason: event.reason })
    },
    observeRpc: (event) => {
      const chain = String(event.chainId)
      rpcCalls.inc({ chain, outcome: event.outcome })
      if (event.outcome !== 'ok') rpcErrors.inc({ chain, kind: event.outcome })
    },
    delivered: (type) => delivered.inc({ type }),
    handler: (strategy, outcome, durationMs) => {
      handlerLatency.observe({ strategy, outcome }, durationMs / 1000)
      if (outcome === 'failed') errors.inc({ where: 'strategy' })
    },
  }
}
