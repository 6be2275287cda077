import type { DeltaflowConfig } from '../config/schema.js'
import type { Clock } from '../time/clock.js'
import { clockSpeed } from '../time/clock-timer.js'
import type { Bot } from './bot.js'

/** Healthy while running, with a reconciliation in the last three intervals (counted in real time). */
export function healthOf(bot: Bot, clock: Clock, config: Pick<DeltaflowConfig, 'reconcile'>) {
  const stats = bot.stats()
  const speed = clockSpeed(clock)
  const now = clock.now()
  const sinceReconcileMs = stats.lastReconcileAt === null ? null : (now - stats.lastReconcileAt) / speed
  const sinceQuoteMs = stats.lastQuoteAt === null ? null : (now - stats.lastQuoteAt) / speed
  const reconcileFresh = sinceReconcileMs !== null && sinceReconcileMs <= 3 * config.reconcile.intervalMs + 10_000
  return {
    healthy: stats.running && (reconcileFresh || (stats.reconcilePasses === 0 && stats.reconcileErrors === 0)),
    running: stats.running,
    sinceReconcileMs,
    sinceQuoteMs,
    quotes: stats.quotes,
    quoteErrors: stats.quoteErrors,
    executionErrors: stats.executionErrors,
    pausedStrategies: Object.entries(stats.strategies)
      .filter(([, strategy]) => strategy.paused)
      .map(([name]) => name),
  }
}
