import type { Journal } from '../journal/journal.js'
import { type JournalSummary, summarizeJournal } from '../journal/journal-summary.js'
import { formatTokenAmount, labelOf, type TokenLabels, tokenKey } from './token-labels.js'

/** A recent fill with the tokens it moved, `chainId:address` as the flows name them, when the summary carries them. */
export type SummaryFill = JournalSummary['recentFills'][number] & { spentToken?: string | undefined; receivedToken?: string | undefined }

/** The journal's summary as the command line prints it: each recent fill names its tokens. */
export type CommandJournalSummary = Omit<JournalSummary, 'recentFills'> & { recentFills: SummaryFill[] }

/**
 * The journal's summary (summarizeJournal), each recent fill with `spentToken` (the order's source token on its
 * chain) and `receivedToken` (its destination token on its destination chain).
 */
export function summarizeJournalWithTokens(journal: Journal, options: { recentFills?: number } = {}): CommandJournalSummary {
  const summary = summarizeJournal(journal, options)
  return {
    ...summary,
    recentFills: summary.recentFills.map((fill) => {
      const order = journal.getOrder({ id: fill.orderId })
      if (!order) return fill
      return { ...fill, spentToken: tokenKey(order.chainId, order.srcToken), receivedToken: tokenKey(order.destChainId, order.destToken) }
    }),
  }
}

/** The tokens of the labels, for a JSON document: `chainId:address` → symbol and decimals. */
export function describeTokenLabels(labels: TokenLabels): Record<string, { symbol: string; decimals: number }> {
  return Object.fromEntries([...labels].map(([key, { symbol, decimals }]) => [key, { symbol, decimals }]))
}

/** The summary as text for a person: one block per strategy; amounts in token units where `tokens` knows them. */
export function formatJournalSummary(summary: CommandJournalSummary | JournalSummary, tokens: TokenLabels = new Map()): string {
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
        const value = formatTokenAmount(tokens, token, BigInt(amount))
        const [chainId] = token.split(':')
        lines.push(`    ${value.startsWith('-') ? value : `+${value}`} on chain ${chainId}`)
      }
    }
  }
  const fills: readonly SummaryFill[] = summary.recentFills
  if (fills.length > 0) {
    lines.push('', 'recent fills:')
    for (const fill of fills) {
      const amount = (key: string | undefined, raw: string) =>
        key === undefined || labelOf(tokens, key) === undefined ? `${raw} raw` : formatTokenAmount(tokens, key, BigInt(raw))
      lines.push(
        `  ${new Date(fill.at).toISOString()}  ${fill.strategy}  ${fill.orderId}  spent ${amount(fill.spentToken, fill.spent)}  received ${amount(fill.receivedToken, fill.received)}  ${fill.txHash}`,
      )
    }
  }
  return `${lines.join('\n')}\n`
}
