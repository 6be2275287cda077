import { isFinalStatus, type OrderMode } from '../domain/order-status.js'
import type { Journal } from './journal.js'

/** What the journal says a bot did: per strategy, its intents, orders by status, fills, refunds and token flows. */
export type JournalSummary = {
  journal: string
  strategies: StrategySummary[]
  orders: { byStatus: Record<string, number>; open: number; total: number }
  fills: number
  refunds: number
  recentFills: { orderId: string; strategy: string; chainId: number; txHash: string; spent: string; received: string; at: number }[]
}

export type StrategySummary = {
  name: string
  intents: Record<string, number>
  orders: Record<string, number>
  /**
   * Net token movements of its fills and refunds, raw units per `chainId:token`: received + refunded − spent. A
   * strategy's profit and loss in kind (no prices are assumed).
   */
  net: Record<string, string>
}

/** Reads the summary of `deltaflow status` and of the end of `deltaflow run` from the journal alone. */
export function summarizeJournal(journal: Journal, { recentFills = 10 }: { recentFills?: number } = {}): JournalSummary {
  const strategies = new Map<string, StrategySummary>()
  const strategyOf = (name: string): StrategySummary => {
    let summary = strategies.get(name)
    if (!summary) {
      summary = { name, intents: {}, orders: {}, net: {} }
      strategies.set(name, summary)
    }
    return summary
  }
  for (const row of journal.intentCounts()) strategyOf(row.strategy).intents[row.status] = row.count
  const byStatus: Record<string, number> = {}
  let open = 0
  let total = 0
  for (const row of journal.orderCounts()) {
    const status = `${row.mode}:${row.status}`
    strategyOf(row.strategy).orders[status] = (strategyOf(row.strategy).orders[status] ?? 0) + row.count
    byStatus[status] = (byStatus[status] ?? 0) + row.count
    total += row.count
    if (!isFinalStatus(row.mode as OrderMode, row.status)) open += row.count
  }
  const net = new Map<string, bigint>()
  for (const flow of journal.tokenFlows()) {
    const key = `${flow.strategy}\n${flow.chainId}:${flow.token}`
    net.set(key, (net.get(key) ?? 0n) + flow.received + flow.refunded - flow.spent)
  }
  for (const [key, amount] of net) {
    const [strategy = '', token = ''] = key.split('\n')
    strategyOf(strategy).net[token] = amount.toString()
  }
  const recent = journal.recentFills(recentFills)
  return {
    journal: journal.file,
    strategies: [...strategies.values()].sort((a, b) => a.name.localeCompare(b.name)),
    orders: { byStatus, open, total },
    fills: journal.fillCount(),
    refunds: journal.refundCount(),
    recentFills: recent.map((fill) => ({
      orderId: fill.orderId,
      strategy: fill.strategy,
      chainId: fill.chainId,
      txHash: fill.txHash,
      spent: fill.spent.toString(),
      received: fill.received.toString(),
      at: fill.recordedAt,
    })),
  }
}
