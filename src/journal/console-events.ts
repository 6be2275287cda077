import type { Database } from 'better-sqlite3'
import type { Clock } from '../time/clock.js'

/**
 * One row of the console's event sequence (table console_events, filled by triggers and by the console), joined with
 * the row it points at: an order's status change, a fill, a refund, an intent's status, a strategy event or an
 * operator action. Amounts are the journal's decimal strings of raw units.
 */
export type ConsoleEventRow = {
  id: number
  kind: 'order-status' | 'fill' | 'refund' | 'intent' | 'strategy' | 'action'
  subject: string | null
  detail: string | null
  at: number
  orderId: string | null
  orderStrategy: string | null
  statusSeq: number | null
  status: string | null
  statusReason: string | null
  fillId: number | null
  chainId: number | null
  txHash: string | null
  spentAmount: string | null
  receivedAmount: string | null
  fillSource: string | null
  refundToken: string | null
  refundAmount: string | null
  intentStrategy: string | null
  intentKind: string | null
  intentReason: string | null
  actionId: number | null
}

export type ConsoleEventsAfterParameters = {
  /** Events after this id (exclusive). */
  after: number
  /** Up to this id (inclusive): where a live stream has got to. */
  upTo: number
  limit: number
}

/** Statements over console_events; each function runs inside the caller's transaction. */
export function createConsoleEventStatements(db: Database, clock: Clock) {
  const selectAfter = db.prepare<[number, number, number], ConsoleEventRow>(
    `SELECT e.id, e.kind, e.subject, e.detail, e.at,
       coalesce(h.order_id, f.order_id, r.order_id) AS orderId, o.strategy AS orderStrategy,
       h.seq AS statusSeq, h.status AS status, h.reason AS statusReason,
       f.id AS fillId, coalesce(f.chain_id, r.chain_id) AS chainId, coalesce(f.tx_hash, r.tx_hash) AS txHash,
       f.spent_amount AS spentAmount, f.received_amount AS receivedAmount, f.source AS fillSource,
       r.token AS refundToken, r.amount AS refundAmount,
       i.strategy AS intentStrategy, i.kind AS intentKind, i.refusal_reason AS intentReason,
       a.id AS actionId
     FROM console_events AS e
     LEFT JOIN order_status_history AS h ON e.kind = 'order-status' AND h.id = e.ref
     LEFT JOIN fills AS f ON e.kind = 'fill' AND f.id = e.ref
     LEFT JOIN refunds AS r ON e.kind = 'refund' AND r.id = e.ref
     LEFT JOIN orders AS o ON o.id = coalesce(h.order_id, f.order_id, r.order_id)
     LEFT JOIN intents AS i ON e.kind = 'intent' AND i.id = e.subject
     LEFT JOIN operator_actions AS a ON e.kind = 'action' AND a.id = e.ref
     WHERE e.id > ? AND e.id <= ? ORDER BY e.id LIMIT ?`,
  )
  const selectLast = db.prepare<[], number>('SELECT coalesce(max(id), 0) FROM console_events').pluck()
  const insertStrategyEvent = db.prepare<[string, string, number]>(
    "INSERT INTO console_events (kind, subject, detail, at) VALUES ('strategy', ?, ?, ?)",
  )

  return {
    consoleEventsAfter: ({ after, upTo, limit }: ConsoleEventsAfterParameters): ConsoleEventRow[] => selectAfter.all(after, upTo, limit),
    /** The id of the latest event, 0 before the first. */
    lastConsoleEventId: (): number => selectLast.get() ?? 0,
    /** A strategy paused, resumed or failed (held in memory by the bot, journaled here for the event stream). */
    recordStrategyEvent: (strategy: string, event: Record<string, unknown>): void => {
      insertStrategyEvent.run(strategy, JSON.stringify(event), clock.now())
    },
  }
}
