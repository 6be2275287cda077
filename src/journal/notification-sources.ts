import type { Database } from 'better-sqlite3'
import { z } from 'zod'
import { amountColumn } from './sql-values.js'

const fillEventSchema = z.object({
  fillId: z.number().int(),
  orderId: z.string(),
  strategy: z.string(),
  mode: z.string(),
  chainId: z.number().int(),
  txHash: z.string(),
  srcToken: z.string(),
  destToken: z.string(),
  destChainId: z.number().int(),
  spent: amountColumn,
  received: amountColumn,
  recordedAt: z.number().int(),
})

/** A fill with its order's strategy and tokens: what a notification about it says. */
export type FillEvent = z.output<typeof fillEventSchema>

const settledIntentSchema = z.object({
  id: z.string(),
  strategy: z.string(),
  kind: z.string(),
  status: z.enum(['refused', 'failed']),
  limit: z.string().nullable(),
  reason: z.string(),
  updatedAt: z.number().int(),
})

/** An intent that ended refused or failed. */
export type RefusedOrFailedIntent = z.output<typeof settledIntentSchema>

const fillColumns = `fills.id AS fillId, fills.order_id AS orderId, coalesce(orders.strategy, '') AS strategy, orders.mode AS mode,
  fills.chain_id AS chainId, fills.tx_hash AS txHash, orders.src_token AS srcToken, orders.dest_token AS destToken,
  coalesce(fills.destination_chain_id, orders.dest_chain_id) AS destChainId,
  fills.spent_amount AS spent, fills.received_amount AS received, fills.recorded_at AS recordedAt`

/** Read-only queries the notifier turns into events: new fills, intents refused or failed, a day's fills and intents. */
export function createNotificationSourceStatements(db: Database) {
  const selectFillsAfter = db.prepare<[number, number], unknown>(
    `SELECT ${fillColumns} FROM fills JOIN orders ON orders.id = fills.order_id WHERE fills.id > ? ORDER BY fills.id LIMIT ?`,
  )
  const selectFillsBetween = db.prepare<[number, number], unknown>(
    `SELECT ${fillColumns} FROM fills JOIN orders ON orders.id = fills.order_id
     WHERE fills.recorded_at >= ? AND fills.recorded_at < ? ORDER BY fills.id`,
  )
  const selectLastFillId = db.prepare<[], number>('SELECT coalesce(max(id), 0) FROM fills').pluck()
  // (updated_at, id) orders the intents: a status change moves an intent past the cursor.
  const selectIntentsAfter = db.prepare<[number, string, number], unknown>(
    `SELECT id, strategy, kind, status, refusal_limit AS "limit", refusal_reason AS reason, updated_at AS updatedAt FROM intents
     WHERE status IN ('refused', 'failed') AND (updated_at, id) > (?, ?) ORDER BY updated_at, id LIMIT ?`,
  )
  const selectLastIntent = db.prepare<[], { updatedAt: number; id: string }>(
    'SELECT updated_at AS updatedAt, id FROM intents ORDER BY updated_at DESC, id DESC LIMIT 1',
  )
  const selectIntentCountsBetween = db.prepare<[number, number], { strategy: string; status: string; count: number }>(
    `SELECT strategy, status, count(*) AS count FROM intents WHERE created_at >= ? AND created_at < ?
     GROUP BY strategy, status ORDER BY strategy, status`,
  )

  return {
    /** Fills with an id above `fillId`, in id order. */
    fillsAfter: (fillId: number, limit = 500): FillEvent[] => selectFillsAfter.all(fillId, limit).map((row) => fillEventSchema.parse(row)),
    /** Fills recorded in [from, to), ms of the journal's clock. */
    fillsBetween: (from: number, to: number): FillEvent[] => selectFillsBetween.all(from, to).map((row) => fillEventSchema.parse(row)),
    lastFillId: (): number => selectLastFillId.get() ?? 0,
    /** Intents refused or failed after the cursor (updatedAt, id), in that order. */
    refusedOrFailedIntentsAfter: (cursor: { updatedAt: number; id: string }, limit = 500): RefusedOrFailedIntent[] =>
      selectIntentsAfter.all(cursor.updatedAt, cursor.id, limit).map((row) => settledIntentSchema.parse(row)),
    lastIntentChange: (): { updatedAt: number; id: string } => selectLastIntent.get() ?? { updatedAt: 0, id: '' },
    /** Intents created in [from, to), counted per strategy and status. */
    intentCountsBetween: (from: number, to: number) => selectIntentCountsBetween.all(from, to),
  }
}
