import type { Database } from 'better-sqlite3'
import { z } from 'zod'
import type { Clock } from '../time/clock.js'
import { JournalRecordNotFoundError } from './journal-errors.js'
import { jsonColumn, toJsonText } from './sql-values.js'

export const intentKinds = ['swap', 'limit', 'twap', 'twapBuy', 'crosschain', 'otcP2p', 'cancel'] as const
export type IntentKind = (typeof intentKinds)[number]

export const intentRowSchema = z
  .object({
    id: z.string(),
    strategy: z.string(),
    kind: z.enum(intentKinds),
    intent_json: jsonColumn,
    status: z.enum(['accepted', 'refused', 'done']),
    refusal_reason: z.string().nullable(),
    created_at: z.number().int(),
    updated_at: z.number().int(),
  })
  .transform((row) => ({
    id: row.id,
    strategy: row.strategy,
    kind: row.kind,
    intent: row.intent_json,
    status: row.status,
    refusalReason: row.refusal_reason,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  }))

export type JournalIntent = z.output<typeof intentRowSchema>

export type RecordIntentParameters = {
  /** Deterministic id derived from the intent's content, so a restart that repeats the intent finds it. */
  id: string
  strategy: string
  kind: IntentKind
  /** The intent as plain data; bigint values are stored as decimal strings. */
  intent: unknown
}

/** Statements over `intents`; each function runs inside the caller's transaction. */
export function createIntentStatements(db: Database, clock: Clock) {
  const insert = db.prepare(
    `INSERT INTO intents (id, strategy, kind, intent_json, status, created_at, updated_at)
     VALUES (?, ?, ?, ?, 'accepted', ?, ?) ON CONFLICT (id) DO NOTHING`,
  )
  const select = db.prepare('SELECT * FROM intents WHERE id = ?')
  const updateStatus = db.prepare('UPDATE intents SET status = ?, refusal_reason = ?, updated_at = ? WHERE id = ?')

  function getIntent(id: string): JournalIntent | undefined {
    const row = select.get(id)
    return row === undefined ? undefined : intentRowSchema.parse(row)
  }

  function requireIntent(id: string): JournalIntent {
    const intent = getIntent(id)
    if (!intent) throw new JournalRecordNotFoundError({ kind: 'intent', id })
    return intent
  }

  /** Stores an accepted intent; an id already stored is success and returns the stored row unchanged. */
  function recordIntent({ id, strategy, kind, intent }: RecordIntentParameters): JournalIntent {
    const now = clock.now()
    insert.run(id, strategy, kind, toJsonText(intent), now, now)
    return requireIntent(id)
  }

  /** Marks an intent refused with a reason; repeating it keeps the first reason. */
  function refuseIntent(id: string, reason: string): JournalIntent {
    const stored = requireIntent(id)
    if (stored.status !== 'accepted') return stored
    updateStatus.run('refused', reason, clock.now(), id)
    return requireIntent(id)
  }

  /** Marks an intent done (all of its orders reached a final status); repeating it is a no-op. */
  function completeIntent(id: string): JournalIntent {
    const stored = requireIntent(id)
    if (stored.status !== 'accepted') return stored
    updateStatus.run('done', null, clock.now(), id)
    return requireIntent(id)
  }

  return { getIntent, recordIntent, refuseIntent, completeIntent }
}
