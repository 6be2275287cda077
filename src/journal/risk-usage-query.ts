import type { Database } from 'better-sqlite3'
import type { RiskUsage, TokenUsage } from '../exec/risk/risk-usage.js'
import { finalStatusSql } from './order-status.js'
import type { createSpendTotalStatements } from './spend-totals.js'

type OpenRow = { strategy: string; open: number }

/**
 * What the risk limits need from the journal: source amounts committed by accepted (and done) intents per token and
 * UTC day (kept up to date by the intent writes, so this reads a few rows), and open orders per strategy (through
 * the partial index of open orders). Refused and failed intents commit nothing.
 */
export function createRiskUsageQuery(db: Database, spend: ReturnType<typeof createSpendTotalStatements>) {
  const selectOpen = db.prepare<[], OpenRow>(
    `SELECT intents.strategy AS strategy, count(*) AS open FROM orders INDEXED BY orders_open
     JOIN intents ON intents.id = orders.intent_id
     WHERE NOT (${finalStatusSql('orders')}) GROUP BY intents.strategy`,
  )

  return function riskUsage(): RiskUsage {
    const tokens: Record<string, TokenUsage> = {}
    for (const [token, { byDay, total }] of spend.spendTotals()) {
      tokens[token] = { spentByUtcDay: Object.fromEntries(byDay), spentTotal: total }
    }
    const openOrdersByStrategy: Record<string, number> = {}
    for (const { strategy, open } of selectOpen.iterate()) openOrdersByStrategy[strategy] = open
    return { tokens, openOrdersByStrategy }
  }
}
