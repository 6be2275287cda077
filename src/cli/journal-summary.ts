import { type Address, erc20Abi, formatUnits } from 'viem'
import type { ChainClients } from '../chain/chain-clients.js'
import { nativeToken } from '../chain/token-flows.js'
import type { OrderMode } from '../domain/order-status.js'
import { isFinalStatus } from '../domain/order-status.js'
import type { Journal } from '../journal/journal.js'

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

/** A token's symbol and decimals, keyed `chainId:address` (lowercase), for amounts a person can read. */
export type TokenLabels = ReadonlyMap<string, { symbol: string; decimals: number }>

/** The summary as text for a person: one block per strategy; amounts in token units where `tokens` knows them. */
export function formatJournalSummary(summary: JournalSummary, tokens: TokenLabels = new Map()): string {
  const counts = (record: Record<string, number>) =>
    Object.entries(record)
      .map(([key, count]) => `${key} ${count}`)
      .join(', ') || 'none'
  const lines = [
    `journal ${summary.journal}`,
    `orders: ${summary.orders.total} (${summary.orders.open} open) — ${counts(summary.orders.byStatus)}`,
    `fills: ${summary.fills}, refunds: ${summary.refunds}`,
  ]
  for (const strategy of summary.strategies) {
    lines.push('', `strategy ${strategy.name || '(no strategy)'}`)
    lines.push(`  intents: ${counts(strategy.intents)}`)
    lines.push(`  orders:  ${counts(strategy.orders)}`)
    const net = Object.entries(strategy.net)
    if (net.length > 0) {
      lines.push('  net token flows (fills and refunds):')
      for (const [token, amount] of net) {
        const label = tokens.get(token)
        const value = label ? formatUnits(BigInt(amount), label.decimals) : `${amount} raw`
        const [chainId, address] = token.split(':')
        lines.push(
          `    ${value.startsWith('-') ? value : `+${value}`} ${label ? `${label.symbol} on chain ${chainId}` : `of ${address} on chain ${chainId}`}`,
        )
      }
    }
  }
  if (summary.recentFills.length > 0) {
    lines.push('', 'recent fills:')
    for (const fill of summary.recentFills) {
      lines.push(
        `  ${new Date(fill.at).toISOString()}  ${fill.strategy}  ${fill.orderId}  spent ${fill.spent}  received ${fill.received}  ${fill.txHash}`,
      )
    }
  }
  return `${lines.join('\n')}\n`
}

/** Reads the symbol and decimals of every token in the summary's flows from its chain; a token that fails is left raw. */
export async function readTokenLabels(summary: JournalSummary, chains: ReadonlyMap<number, ChainClients>): Promise<TokenLabels> {
  const keys = new Set(summary.strategies.flatMap((strategy) => Object.keys(strategy.net)))
  const labels = new Map<string, { symbol: string; decimals: number }>()
  await Promise.all(
    [...keys].map(async (key) => {
      const [chainId, address] = key.split(':') as [string, Address]
      if (address === nativeToken) {
        labels.set(key, { symbol: 'ETH', decimals: 18 })
        return
      }
      const client = chains.get(Number(chainId))?.publicClient
      if (!client) return
      try {
        const [symbol, decimals] = await Promise.all([
          client.readContract({ address, abi: erc20Abi, functionName: 'symbol' }),
          client.readContract({ address, abi: erc20Abi, functionName: 'decimals' }),
        ])
        labels.set(key, { symbol, decimals })
      } catch {
        // not a standard ERC-20: shown in raw units
      }
    }),
  )
  return labels
}
