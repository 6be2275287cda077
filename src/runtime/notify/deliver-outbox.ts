import type { Journal } from '../../journal/journal.js'
import type { JournalNotification } from '../../journal/notifications.js'
import type { Logger } from '../../log/logger.js'
import type { Clock } from '../../time/clock.js'
import { clockSpeed } from '../../time/clock-timer.js'
import { type Backoff, retryDelayMs } from './next-attempt.js'
import { notificationMessageSchema } from './notification-message.js'
import type { RateLimiter } from './rate-limiter.js'
import { redactSecrets } from './redact-secrets.js'
import type { NotificationTarget } from './resolve-targets.js'

export type DeliveryJournal = Pick<
  Journal,
  'dueNotifications' | 'markNotificationDelivered' | 'markNotificationFailed' | 'markNotificationRejected'
>

export type DeliverParameters = {
  journal: DeliveryJournal
  targets: readonly NotificationTarget[]
  /** The bot's clock: next attempts are stored in its ms. */
  clock: Clock
  backoff: Backoff
  limiters: ReadonlyMap<string, RateLimiter>
  /** Per target, the clock time before which it is not called (after a failed attempt, or a 429's Retry-After). */
  heldUntil: Map<string, number>
  logger: Logger
}

export type DeliveryCounts = { delivered: number; retried: number; rejected: number }

/**
 * One pass over the outbox: each target's due messages in order, one at a time, as far as its rate allows. A failed
 * attempt is stored with its next attempt time (backoff in real ms, on the bot's clock) and ends the target's pass;
 * a 2xx marks the message delivered at once. A crash between the receiver's 2xx and that mark sends it once more at
 * the next start (at-least-once; the key in the message lets a receiver drop the repeat).
 */
export async function deliverDueNotifications(parameters: DeliverParameters): Promise<DeliveryCounts> {
  const { journal, targets, clock, heldUntil } = parameters
  const now = clock.now()
  const ready = targets.filter((target) => (heldUntil.get(target.name) ?? 0) <= now)
  if (ready.length === 0) return { delivered: 0, retried: 0, rejected: 0 }
  const due = journal.dueNotifications({ now, targets: ready.map((target) => target.name), limit: 500 })
  const counts: DeliveryCounts = { delivered: 0, retried: 0, rejected: 0 }
  await Promise.all(
    ready.map((target) =>
      deliverToTarget(
        parameters,
        target,
        due.filter((notification) => notification.target === target.name),
        counts,
      ),
    ),
  )
  return counts
}

async function deliverToTarget(
  { journal, clock, backoff, limiters, heldUntil, logger }: DeliverParameters,
  target: NotificationTarget,
  due: readonly JournalNotification[],
  counts: DeliveryCounts,
): Promise<void> {
  const log = logger.child({ target: target.name, receiver: target.description })
  for (const notification of due) {
    if (limiters.get(target.name)?.tryTake() === false) return
    const message = notificationMessageSchema.safeParse(notification.message)
    if (!message.success) {
      journal.markNotificationRejected({ id: notification.id, error: 'the stored message does not parse' })
      counts.rejected += 1
      continue
    }
    const outcome = await target.send(message.data)
    if (outcome.outcome === 'delivered') {
      journal.markNotificationDelivered(notification.id)
      counts.delivered += 1
      continue
    }
    const error = redactSecrets(outcome.error, target.secrets)
    const fields = { notification: notification.key, attempts: notification.attempts + 1, error }
    if (outcome.outcome === 'rejected') {
      journal.markNotificationRejected({ id: notification.id, error })
      counts.rejected += 1
      log.error(fields, 'notification refused by its receiver; not sent again')
      continue
    }
    const delayMs = retryDelayMs(backoff, notification.attempts + 1, outcome.retryAfterMs)
    const nextAttemptAt = clock.now() + Math.ceil(delayMs * clockSpeed(clock))
    journal.markNotificationFailed({ id: notification.id, nextAttemptAt, error })
    counts.retried += 1
    // The receiver is failing or asked to wait: its other messages wait with this one, and keep their order.
    heldUntil.set(target.name, nextAttemptAt)
    log.warn({ ...fields, retryInMs: delayMs }, 'notification not delivered; trying again later')
    return
  }
}
