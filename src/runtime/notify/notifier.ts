import type { Journal } from '../../journal/journal.js'
import type { FillMismatch } from '../../journal/reconcile/reconcile-report.js'
import type { Logger } from '../../log/logger.js'
import type { Clock } from '../../time/clock.js'
import type { FormatTokenAmount } from '../token-labels.js'
import {
  type BotStateNow,
  collectBotState,
  collectDailySummary,
  collectFills,
  collectIntents,
  collectMismatches,
  initializeCursors,
} from './collect-events.js'
import { type DeliveryCounts, deliverDueNotifications } from './deliver-outbox.js'
import { enqueueEvents } from './enqueue-events.js'
import { botStartMessage, botStopMessage } from './event-messages.js'
import type { Backoff } from './next-attempt.js'
import type { NotificationMessage } from './notification-message.js'
import { createRateLimiter } from './rate-limiter.js'
import type { NotificationTarget } from './resolve-targets.js'

export type CreateNotifierParameters = {
  journal: Journal
  targets: readonly NotificationTarget[]
  /** The bot's clock (the venue's): event keys, the daily summary's UTC day and next attempts count on it. */
  clock: Clock
  backoff: Backoff
  /** Real ms between two passes; absent: passes run only when `tick()` is called (tests). */
  intervalMs?: number | undefined
  formatAmount: FormatTokenAmount
  /** What the bot looks like now: strategies paused, the kill switch. */
  botState?: (() => Omit<BotStateNow, 'now'>) | undefined
  logger: Logger
  /** Real ms for the rate limits (default performance.now). */
  realNow?: (() => number) | undefined
}

export type Notifier = {
  /** Tells `bot-start` and starts the passes. */
  start: (parameters: { mode: string; strategies: readonly string[] }) => void
  /** Stops the passes, tells `bot-stop`, and makes one last pass (each send bounded by its target's timeout). */
  stop: (parameters: { pendingOrders: number }) => Promise<void>
  /** Queues a reconciliation's fill mismatches. */
  reconcileMismatches: (mismatches: readonly FillMismatch[]) => void
  /** One pass: queue what the journal and the bot show that is new, then deliver what is due. */
  tick: () => Promise<DeliveryCounts>
}

/**
 * The bot's notifications, off its critical path: a timer of its own turns new journal rows (fills, intents refused
 * or failed), state changes (pauses, the kill switch) and the day's end into outbox rows, then delivers the outbox.
 * Every failure is logged (never a secret) and retried; nothing here throws into the bot.
 */
export function createNotifier(parameters: CreateNotifierParameters): Notifier {
  const { journal, targets, clock, backoff, intervalMs, formatAmount, botState, realNow } = parameters
  const logger = parameters.logger.child({ unit: 'notify' })
  const limiters = new Map(targets.map((target) => [target.name, createRateLimiter({ perMinute: target.perMinute, now: realNow })]))
  const heldUntil = new Map<string, number>()
  const source = { journal, targets, formatAmount }
  let timer: ReturnType<typeof setInterval> | undefined
  let running: Promise<DeliveryCounts> | undefined

  async function collect(): Promise<void> {
    try {
      await collectFills(source)
      collectIntents(source)
      if (botState) collectBotState(source, { ...botState(), now: clock.now() })
      await collectDailySummary(source, clock.now())
    } catch (error) {
      logger.error({ err: error }, 'queueing notifications failed; trying again at the next pass')
    }
  }

  async function deliver(): Promise<DeliveryCounts> {
    try {
      return await deliverDueNotifications({ journal, targets, clock, backoff, limiters, heldUntil, logger })
    } catch (error) {
      logger.error({ err: error }, 'delivering notifications failed; trying again at the next pass')
      return { delivered: 0, retried: 0, rejected: 0 }
    }
  }

  /** Passes never overlap: a pass asked for during another waits for it, then runs. */
  function queuePass(pass: () => Promise<DeliveryCounts>): Promise<DeliveryCounts> {
    const next = (running ?? Promise.resolve()).then(pass, pass)
    running = next
    return next
  }

  const tick = () =>
    queuePass(async () => {
      await collect()
      return deliver()
    })

  function enqueueSafely(key: string, message: NotificationMessage): void {
    try {
      enqueueEvents(journal, targets, [{ key, message }])
    } catch (error) {
      logger.error({ err: error, notification: key }, 'queueing a notification failed')
    }
  }

  return {
    start: ({ mode, strategies }) => {
      try {
        initializeCursors(journal, clock.now())
      } catch (error) {
        logger.error({ err: error }, 'reading the notification cursors failed')
      }
      enqueueSafely(`bot-start:${clock.now()}`, botStartMessage({ mode, strategies }))
      void tick()
      if (intervalMs !== undefined) {
        let busy = false
        timer = setInterval(() => {
          // A pass still running (a slow receiver) makes this tick be skipped.
          if (busy) return
          busy = true
          void tick().finally(() => {
            busy = false
          })
        }, intervalMs)
        // The bot's stop ends it; it never holds the process open by itself.
        timer.unref()
      }
      logger.info({ targets: targets.map((target) => `${target.name}: ${target.description}`) }, 'notifications on')
    },
    stop: async ({ pendingOrders }) => {
      if (timer !== undefined) clearInterval(timer)
      timer = undefined
      // What the bot's last pass journaled is told before its stop.
      await queuePass(async () => {
        await collect()
        enqueueSafely(`bot-stop:${clock.now()}`, botStopMessage({ pendingOrders }))
        return deliver()
      })
    },
    reconcileMismatches: (mismatches) => {
      try {
        collectMismatches(source, mismatches)
      } catch (error) {
        logger.error({ err: error }, 'queueing reconciliation mismatches failed')
      }
    },
    tick,
  }
}
