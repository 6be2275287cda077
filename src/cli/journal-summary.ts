import type { JournalSummary } from '../journal/journal-summary.js'

/** A token's symbol and how to write its raw amounts in token units, keyed `chainId:address` (lowercase). */
export type TokenLabels = ReadonlyMap<string, { symbol: string; format: (amount: bigint) => string }>

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
        const value = label ? label.format(BigInt(amount)) : `${amount} raw`
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
