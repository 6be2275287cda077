import type { Database } from 'better-sqlite3'
import { z } from 'zod'
import type { Clock } from '../time/clock.js'
import { jsonColumn } from './sql-values.js'

export const notificationStatuses = ['pending', 'delivered', 'rejected'] as const

const notificationRowSchema = z
  .object({
    id: z.number().int(),
    target: z.string(),
    event_key: z.string(),
    event: z.string(),
    message_json: jsonColumn,
    status: z.enum(notificationStatuses),
    attempts: z.number().int(),
    next_attempt_at: z.number().int(),
    last_error: z.string().nullable(),
    created_at: z.number().int(),
    delivered_at: z.number().int().nullable(),
  })
  .transform((row) => ({
    id: row.id,
    target: row.target,
    key: row.event_key,
    event: row.event,
    /** The message as queued; its reader parses it with its own schema. */
    message: row.message_json,
    status: row.status,
    attempts: row.attempts,
    nextAttemptAt: row.next_attempt_at,
    lastError: row.last_error,
    createdAt: row.created_at,
    deliveredAt: row.delivered_at,
  }))

/** One message of the outbox, for one target. */
export type JournalNotification = z.output<typeof notificationRowSchema>

export type EnqueueNotificationsParameters = {
  notifications: readonly { target: string; key: string; event: string; message: unknown }[]
  /** Cursors moved in the same transaction (the journal rows the notifications were made from). */
  cursors?: Readonly<Record<string, string>> | undefined
}

/** Statements over `notifications` and `notification_cursors`. Each function runs inside the caller's transaction. */
export function createNotificationStatements(db: Database, clock: Clock) {
  const insert = db.prepare(
    `INSERT INTO notifications (target, event_key, event, message_json, status, next_attempt_at, created_at)
     VALUES (?, ?, ?, ?, 'pending', ?, ?) ON CONFLICT (target, event_key) DO NOTHING`,
  )
  const upsertCursor = db.prepare(
    `INSERT INTO notification_cursors (name, value, updated_at) VALUES (?, ?, ?)
     ON CONFLICT (name) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
  )
  const selectCursor = db.prepare<[string], string>('SELECT value FROM notification_cursors WHERE name = ?').pluck()
  const selectDue = db.prepare<[number, string, number], unknown>(
    `SELECT * FROM notifications WHERE status = 'pending' AND next_attempt_at <= ?
       AND target IN (SELECT value FROM json_each(?)) ORDER BY id LIMIT ?`,
  )
  const selectAll = db.prepare<[], unknown>('SELECT * FROM notifications ORDER BY id')
  const markDelivered = db.prepare(
    `UPDATE notifications SET status = 'delivered', attempts = attempts + 1, delivered_at = ?, last_error = NULL
     WHERE id = ? AND status = 'pending'`,
  )
  const markFailed = db.prepare(
    `UPDATE notifications SET attempts = attempts + 1, next_attempt_at = ?, last_error = ? WHERE id = ? AND status = 'pending'`,
  )
  const markRejected = db.prepare(
    `UPDATE notifications SET status = 'rejected', attempts = attempts + 1, last_error = ? WHERE id = ? AND status = 'pending'`,
  )

  /** Queues each notification unless its (target, key) is already queued; returns how many were added. */
  function enqueueNotifications({ notifications, cursors = {} }: EnqueueNotificationsParameters): number {
    const now = clock.now()
    let added = 0
    for (const { target, key, event, message } of notifications) {
      added += insert.run(target, key, event, JSON.stringify(message), now, now).changes
    }
    for (const [name, value] of Object.entries(cursors)) upsertCursor.run(name, value, now)
    return added
  }

  return {
    enqueueNotifications,
    notificationCursor: (name: string): string | undefined => selectCursor.get(name),
    /** Pending notifications of these targets whose next attempt is due at `now`, in the order they were queued. */
    dueNotifications: ({ now, targets, limit = 100 }: { now: number; targets: readonly string[]; limit?: number }): JournalNotification[] =>
      selectDue.all(now, JSON.stringify(targets), limit).map((row) => notificationRowSchema.parse(row)),
    listNotifications: (): JournalNotification[] => selectAll.all().map((row) => notificationRowSchema.parse(row)),
    /** The receiver took it (a 2xx). */
    markNotificationDelivered: (id: number): boolean => markDelivered.run(clock.now(), id).changes > 0,
    /** An attempt failed; tried again at `nextAttemptAt` (ms of the bot's clock). `error` must hold no secret. */
    markNotificationFailed: ({ id, nextAttemptAt, error }: { id: number; nextAttemptAt: number; error: string }): boolean =>
      markFailed.run(nextAttemptAt, error, id).changes > 0,
    /** The receiver refused it for good; never tried again. */
    markNotificationRejected: ({ id, error }: { id: number; error: string }): boolean => markRejected.run(error, id).changes > 0,
  }
}
