import type { DeltaflowConfig } from '../config/schema.js'
import type { Clock } from '../time/clock.js'
import { clockSpeed } from '../time/clock-timer.js'
import type { Bot } from './bot.js'
import type { ConnectionHealth } from './connection-health.js'

/**
 * Healthy while running, with a reconciliation in the last three intervals (counted in real time), and neither the
 * venue nor any chain failing without an answer for longer than `ops.unhealthyAfterMs`. When unhealthy, `reason` says
 * why in one line and `unavailable` names each target that fails, since when and its last error (no URL).
 */
export function healthOf(bot: Bot, clock: Clock, config: Pick<DeltaflowConfig, 'reconcile'>, connections?: ConnectionHealth) {
  const stats = bot.stats()
  const speed = clockSpeed(clock)
  const now = clock.now()
  const sinceReconcileMs = stats.lastReconcileAt === null ? null : (now - stats.lastReconcileAt) / speed
  const sinceQuoteMs = stats.lastQuoteAt === null ? null : (now - stats.lastQuoteAt) / speed
  const reconcileFresh = sinceReconcileMs !== null && sinceReconcileMs <= 3 * config.reconcile.intervalMs + 10_000
  const reconciling = reconcileFresh || (stats.reconcilePasses === 0 && stats.reconcileErrors === 0)
  const unavailable = connections?.problems() ?? []
  const reasons = [
    ...(stats.running ? [] : ['the bot is not running']),
    ...(reconciling ? [] : [`no reconciliation pass succeeded for ${Math.round((sinceReconcileMs ?? 0) / 1000)} s`]),
    ...unavailable.map(
      ({ target, failingSince, failures, lastError }) =>
        `${target} has not answered since ${failingSince} (${failures} failure${failures === 1 ? '' : 's'}): ${lastError}`,
    ),
  ]
  return {
    healthy: reasons.length === 0,
    ...(reasons.length > 0 ? { reason: reasons.join('; ') } : {}),
    running: stats.running,
    sinceReconcileMs,
    sinceQuoteMs,
    quotes: stats.quotes,
    quoteErrors: stats.quoteErrors,
    executionErrors: stats.executionErrors,
    pausedStrategies: Object.entries(stats.strategies)
      .filter(([, strategy]) => strategy.paused)
      .map(([name]) => name),
    unavailable,
    pausedChains: stats.unavailableChains,
    ...(connections ? { unhealthyAfterMs: connections.unhealthyAfterMs } : {}),
  }
}
