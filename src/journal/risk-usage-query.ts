import type { Database } from 'better-sqlite3'
import type { RiskUsage, TokenUsage } from '../domain/risk-usage.js'
import type { createSpendTotalStatements } from './spend-totals.js'

/**
 * What the risk limits need from the journal: source amounts committed by accepted (and done) intents per token and
 * UTC day (kept up to date by the intent writes, so this reads a few rows), and open orders of the strategies asked
 * for (through the partial index of open orders by strategy). Refused and failed intents commit nothing.
 */
export function createRiskUsageQuery(db: Database, spend: ReturnType<typeof createSpendTotalStatements>) {
  const countOpen = db
    .prepare<[string], number>('SELECT count(*) FROM orders INDEXED BY orders_open WHERE strategy = ? AND open = 1')
    .pluck()

  /**
   * Spend of every token (per day, or only on the UTC day of `now`: the day the limits check, whatever the journal's
   * age); open orders of the strategies named (counting is the part that grows with open orders).
   */
  return function riskUsage({ strategies = [], now }: { strategies?: readonly string[]; now?: number | undefined } = {}): RiskUsage {
    const tokens: Record<string, TokenUsage> = {}
    for (const [token, { byDay, total }] of spend.spendTotals(now)) {
      tokens[token] = { spentByUtcDay: Object.fromEntries(byDay), spentTotal: total }
    }
    const openOrdersByStrategy: Record<string, number> = {}
    for (const strategy of strategies) openOrdersByStrategy[strategy] = countOpen.get(strategy) ?? 0
    return { tokens, openOrdersByStrategy }
  }
}
