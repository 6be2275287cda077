import type { Database } from 'better-sqlite3'
import type { RiskUsage, TokenUsage } from '../exec/risk/risk-usage.js'
import { finalStatusSql } from './order-status.js'

type SpendRow = { token: string; day: string; amount: string }
type OpenRow = { strategy: string; open: number }

/**
 * What the risk limits need from the journal: source amounts committed by accepted (and done) intents per token and
 * UTC day, and open orders per strategy. Refused and failed intents commit nothing.
 */
export function createRiskUsageQuery(db: Database) {
  // Amounts are decimal TEXT of up to 78 digits: summed as bigint here, not by SQLite (which would round).
  const selectSpend = db.prepare<[], SpendRow>(
    `SELECT spend_token AS token, date(created_at / 1000, 'unixepoch') AS day, spend_amount AS amount
     FROM intents WHERE spend_token IS NOT NULL AND status IN ('accepted', 'done')`,
  )
  const selectOpen = db.prepare<[], OpenRow>(
    `SELECT intents.strategy AS strategy, count(*) AS open FROM orders JOIN intents ON intents.id = orders.intent_id
     WHERE NOT (${finalStatusSql('orders')}) GROUP BY intents.strategy`,
  )

  return function riskUsage(): RiskUsage {
    const tokens: Record<string, { spentByUtcDay: Record<string, bigint>; spentTotal: bigint }> = {}
    for (const { token, day, amount } of selectSpend.iterate()) {
      const entry = tokens[token] ?? { spentByUtcDay: {}, spentTotal: 0n }
      tokens[token] = entry
      const value = BigInt(amount)
      entry.spentByUtcDay[day] = (entry.spentByUtcDay[day] ?? 0n) + value
      entry.spentTotal += value
    }
    const openOrdersByStrategy: Record<string, number> = {}
    for (const { strategy, open } of selectOpen.iterate()) openOrdersByStrategy[strategy] = open
    return { tokens: tokens as Record<string, TokenUsage>, openOrdersByStrategy }
  }
}
