import type { Database } from 'better-sqlite3'
import { z } from 'zod'
import type { IntentKind } from '../domain/intents/intent-schema.js'
import type { Clock } from '../time/clock.js'
import { JournalRecordNotFoundError } from './journal-errors.js'
import type { RecordModeChoiceParameters } from './mode-choices.js'
import type { createSpendTotalStatements } from './spend-totals.js'
import { jsonColumn, nullableAmountColumn, toAmountText, toJsonText } from './sql-values.js'

export const intentKinds = [
  'swap',
  'limit',
  'twap-sell',
  'twap-buy',
  'crosschain',
  'otc',
  'cancel',
] as const satisfies readonly IntentKind[]

export const intentStatuses = ['accepted', 'refused', 'failed', 'done'] as const
export type IntentStatus = (typeof intentStatuses)[number]

export const intentRowSchema = z
  .object({
    id: z.string(),
    strategy: z.string(),
    kind: z.enum(intentKinds),
    intent_json: jsonColumn,
    status: z.enum(intentStatuses),
    refusal_limit: z.string().nullable(),
    refusal_reason: z.string().nullable(),
    spend_token: z.string().nullable(),
    spend_amount: nullableAmountColumn,
    created_at: z.number().int(),
    updated_at: z.number().int(),
  })
  .transform((row) => ({
    id: row.id,
    strategy: row.strategy,
    kind: row.kind,
    intent: row.intent_json,
    status: row.status,
    /** The risk limit or stage that refused or failed it (maxSlippage, dailyBudget, mode, venue, ...). */
    refusalLimit: row.refusal_limit,
    refusalReason: row.refusal_reason,
    /** What the intent commits of its source token, for the risk budgets (tokenKey, raw units). */
    spend: row.spend_token === null || row.spend_amount === null ? undefined : { token: row.spend_token, amount: row.spend_amount },
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
  /** What it commits of its source token (counts in the budgets while the intent is accepted or done). */
  spend?: { token: string; amount: bigint } | undefined
  /** Records it refused at once (a risk limit stopped it before anything was signed). */
  refused?: { limit: string; reason: string } | undefined
  /** Records it failed at once (an error stopped it before it was accepted: `stage` where, `reason` the error). */
  failed?: { stage: string; reason: string } | undefined
  /** The mode chosen for it, recorded in the same transaction (the first choice recorded for an intent stands). */
  modeChoice?: Omit<RecordModeChoiceParameters, 'intentId'> | undefined
}

/** Statements over `intents`; each function runs inside the caller's transaction. */
export function createIntentStatements(db: Database, clock: Clock, { addSpend }: ReturnType<typeof createSpendTotalStatements>) {
  const insert = db.prepare(
    `INSERT INTO intents (id, strategy, kind, intent_json, status, refusal_limit, refusal_reason, spend_token, spend_amount,
       created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`,
  )
  const select = db.prepare('SELECT * FROM intents WHERE id = ?')
  const updateStatus = db.prepare('UPDATE intents SET status = ?, refusal_limit = ?, refusal_reason = ?, updated_at = ? WHERE id = ?')
  const selectByStrategy = db.prepare('SELECT * FROM intents WHERE strategy = ? ORDER BY created_at, id')
  const selectSettledAccepted = db
    .prepare(
      `SELECT id FROM intents WHERE status = 'accepted'
         AND EXISTS (SELECT 1 FROM orders WHERE orders.intent_id = intents.id)
         AND NOT EXISTS (SELECT 1 FROM orders WHERE orders.intent_id = intents.id AND orders.open = 1)`,
    )
    .pluck()

  function getIntent(id: string): JournalIntent | undefined {
    const row = select.get(id)
    return row === undefined ? undefined : intentRowSchema.parse(row)
  }

  function requireIntent(id: string): JournalIntent {
    const intent = getIntent(id)
    if (!intent) throw new JournalRecordNotFoundError({ kind: 'intent', id })
    return intent
  }

  /**
   * Stores an intent, accepted unless `refused` or `failed` (which commit nothing); an id already stored is success and
   * returns the stored row unchanged.
   */
  function recordIntent({ id, strategy, kind, intent, spend, refused, failed }: RecordIntentParameters): JournalIntent {
    const now = clock.now()
    const settled: { status: IntentStatus; limit: string; reason: string } | undefined = refused
      ? { status: 'refused', limit: refused.limit, reason: refused.reason }
      : failed && { status: 'failed', limit: failed.stage, reason: failed.reason }
    const committed = settled === undefined ? spend : undefined
    const intentJson = toJsonText(intent)
    const { changes } = insert.run(
      id,
      strategy,
      kind,
      intentJson,
      settled?.status ?? 'accepted',
      settled?.limit ?? null,
      settled?.reason ?? null,
      committed === undefined ? null : committed.token,
      committed === undefined ? null : toAmountText(committed.amount),
      now,
      now,
    )
    if (changes === 0) return requireIntent(id)
    if (committed !== undefined) addSpend(committed.token, now, committed.amount)
    // The row just inserted, as getIntent would read it back (the table's STRICT types and checks accepted every value).
    return {
      id,
      strategy,
      kind,
      intent: JSON.parse(intentJson),
      status: settled?.status ?? 'accepted',
      refusalLimit: settled?.limit ?? null,
      refusalReason: settled?.reason ?? null,
      spend: committed === undefined ? undefined : { token: committed.token, amount: committed.amount },
      createdAt: now,
      updatedAt: now,
    }
  }

  /** Writes an accepted intent's new status; returns the row as updated (read once before, not again after). */
  function settle(stored: JournalIntent, status: IntentStatus, limit: string | null, reason: string | null): JournalIntent {
    const now = clock.now()
    updateStatus.run(status, limit, reason, now, stored.id)
    return { ...stored, status, refusalLimit: limit, refusalReason: reason, updatedAt: now }
  }

  /** An accepted intent that is refused or fails after all gives back what it committed. */
  function releaseSpend(stored: JournalIntent): void {
    if (stored.spend !== undefined) addSpend(stored.spend.token, stored.createdAt, -stored.spend.amount)
  }

  /** Marks an intent refused before anything was signed (`limit`: the risk limit or stage); repeating it keeps the first reason. */
  function refuseIntent(id: string, reason: string, limit = 'risk'): JournalIntent {
    const stored = requireIntent(id)
    if (stored.status !== 'accepted') return stored
    const settled = settle(stored, 'refused', limit, reason)
    releaseSpend(stored)
    return settled
  }

  /**
   * Marks an intent failed: the venue or the chain refused what was signed, or an error stopped its execution (`stage`:
   * venue, chain, approval, execution, submission, cancel); repeating it keeps the first reason.
   */
  function failIntent(id: string, reason: string, stage: string): JournalIntent {
    const stored = requireIntent(id)
    if (stored.status !== 'accepted') return stored
    const settled = settle(stored, 'failed', stage, reason)
    releaseSpend(stored)
    return settled
  }

  function intentsOf(strategy: string): JournalIntent[] {
    return selectByStrategy.all(strategy).map((row) => intentRowSchema.parse(row))
  }

  /** Marks an intent done (all of its orders reached a final status); repeating it is a no-op. */
  function completeIntent(id: string): JournalIntent {
    const stored = requireIntent(id)
    if (stored.status !== 'accepted') return stored
    return settle(stored, 'done', null, null)
  }

  /** Accepted intents whose orders all reached a final status: a crash came between the last one and completeIntent. */
  function settledAcceptedIntents(): string[] {
    return selectSettledAccepted.all() as string[]
  }

  return { getIntent, recordIntent, refuseIntent, failIntent, completeIntent, intentsOf, settledAcceptedIntents }
}
