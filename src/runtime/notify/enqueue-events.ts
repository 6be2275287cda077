import type { Journal } from '../../journal/journal.js'
import type { NotificationMessage } from './notification-message.js'
import type { NotificationTarget } from './resolve-targets.js'

/** An event to tell: its deterministic key (`fill:<fillId>`, `daily-summary:<day>`, ...) and what it says. */
export type NotificationEventItem = { key: string; message: NotificationMessage }

export type OutboxJournal = Pick<Journal, 'enqueueNotifications' | 'notificationCursor'>

/**
 * Queues each event for every target that wants it, and moves `cursors` in the same transaction: an event is queued
 * once per target (the outbox's key is unique), and a restart resumes after the rows already turned into events.
 */
export function enqueueEvents(
  journal: OutboxJournal,
  targets: readonly NotificationTarget[],
  events: readonly NotificationEventItem[],
  cursors?: Readonly<Record<string, string>>,
): number {
  const notifications = events.flatMap(({ key, message }) =>
    targets
      .filter((target) => target.events.has(message.event))
      .map((target) => ({ target: target.name, key, event: message.event, message })),
  )
  return journal.enqueueNotifications({ notifications, cursors })
}
