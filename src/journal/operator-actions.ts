import type { Database } from 'better-sqlite3'
import { z } from 'zod'
import type { Clock } from '../time/clock.js'
import { jsonColumn } from './sql-values.js'

export const operatorActionRowSchema = z
  .object({
    id: z.number().int(),
    key: z.string(),
    action: z.string(),
    target: z.string().nullable(),
    request_json: jsonColumn,
    requested_by: z.string(),
    status: z.enum(['running', 'done', 'failed']),
    outcome_json: jsonColumn.nullable(),
    requested_at: z.number().int(),
    completed_at: z.number().int().nullable(),
  })
  .transform((row) => ({
    id: row.id,
    key: row.key,
    action: row.action,
    target: row.target,
    request: row.request_json,
    /** The token's name (the setting holding it), never the token. */
    requestedBy: row.requested_by,
    status: row.status,
    outcome: row.outcome_json,
    requestedAt: row.requested_at,
    completedAt: row.completed_at,
  }))

export type OperatorAction = z.output<typeof operatorActionRowSchema>

export type BeginOperatorActionParameters = {
  key: string
  action: string
  target: string | null
  request: unknown
  requestedBy: string
}

/** Statements over operator_actions; each function runs inside the caller's transaction. */
export function createOperatorActionStatements(db: Database, clock: Clock) {
  const insert = db.prepare(
    `INSERT INTO operator_actions (key, action, target, request_json, requested_by, status, requested_at)
     VALUES (?, ?, ?, ?, ?, 'running', ?) ON CONFLICT (key) DO NOTHING`,
  )
  const selectByKey = db.prepare('SELECT * FROM operator_actions WHERE key = ?')
  const selectById = db.prepare('SELECT * FROM operator_actions WHERE id = ?')
  const selectRecent = db.prepare('SELECT * FROM operator_actions ORDER BY id DESC LIMIT ?')
  const update = db.prepare(
    "UPDATE operator_actions SET status = ?, outcome_json = ?, completed_at = ? WHERE id = ? AND status = 'running'",
  )
  const selectRunning = db.prepare<[], number>("SELECT id FROM operator_actions WHERE status = 'running'").pluck()
  const insertEvent = db.prepare<[number, number]>("INSERT INTO console_events (kind, ref, at) VALUES ('action', ?, ?)")

  const getOperatorAction = (key: string): OperatorAction | undefined => {
    const row = selectByKey.get(key)
    return row === undefined ? undefined : operatorActionRowSchema.parse(row)
  }

  /** Records an action as running under its key; `created` is false when the key was used before (nothing recorded). */
  function beginOperatorAction({ key, action, target, request, requestedBy }: BeginOperatorActionParameters) {
    const created = insert.run(key, action, target, JSON.stringify(request), requestedBy, clock.now()).changes === 1
    return { created, action: getOperatorAction(key) as OperatorAction }
  }

  /** Its outcome, once: the event stream hears of it in the same transaction. */
  function completeOperatorAction(id: number, status: 'done' | 'failed', outcome: unknown): OperatorAction {
    const now = clock.now()
    if (update.run(status, JSON.stringify(outcome), now, id).changes === 1) insertEvent.run(id, now)
    return operatorActionRowSchema.parse(selectById.get(id))
  }

  /** Actions a stopped bot left running end failed with `reason` (they may have acted in part). */
  function failInterruptedActions(reason: string): number {
    const ids = selectRunning.all()
    for (const id of ids) completeOperatorAction(id, 'failed', { error: reason })
    return ids.length
  }

  return {
    beginOperatorAction,
    completeOperatorAction,
    failInterruptedActions,
    getOperatorAction,
    getOperatorActionById: (id: number): OperatorAction | undefined => {
      const row = selectById.get(id)
      return row === undefined ? undefined : operatorActionRowSchema.parse(row)
    },
    recentOperatorActions: (limit: number): OperatorAction[] => selectRecent.all(limit).map((row) => operatorActionRowSchema.parse(row)),
  }
}
