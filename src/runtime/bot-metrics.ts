import { Counter, Gauge, Histogram, Registry } from 'prom-client'
import type { Journal } from '../journal/journal.js'
import type { StrategyStats } from '../strategy/safe-strategy.js'

/** What the bot reports as it works; `createBotMetrics` turns it into Prometheus series. */
export type BotMetrics = {
  quote: (source: string, latencyMs: number) => void
  quoteError: () => void
  execution: (kind: string, status: string, durationMs: number) => void
  executionError: () => void
  reconcile: (durationMs: number, ok: boolean) => void
  delivered: (type: 'orderUpdate' | 'fill' | 'refund' | 'timer' | 'balances') => void
  handler: (strategy: string, outcome: string, durationMs: number) => void
}

export type PrometheusBotMetrics = BotMetrics & {
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
}: {
  journal: Pick<Journal, 'orderCounts'>
  strategies: () => Record<string, StrategyStats>
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
    delivered: (type) => delivered.inc({ type }),
    handler: (strategy, outcome, durationMs) => {
      handlerLatency.observe({ strategy, outcome }, durationMs / 1000)
      if (outcome === 'failed') errors.inc({ where: 'strategy' })
    },
  }
}
