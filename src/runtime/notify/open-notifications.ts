import type { DeltaflowConfig } from '../../config/schema.js'
import type { Logger } from '../../log/logger.js'
import type { StrategyStats } from '../../strategy/safe-strategy.js'
import type { Bot } from '../bot.js'
import type { BotMetrics } from '../bot-metrics.js'
import type { Session } from '../open-session.js'
import { createTokenAmountFormatter, type TokenLabels } from '../token-labels.js'
import { createNotifier } from './notifier.js'
import type { NotificationTarget } from './resolve-targets.js'
import { withNotifications } from './with-notifications.js'

export type OpenNotificationsParameters = {
  /** Resolved before the session opened (resolveNotificationTargets): a missing variable stops the bot first. */
  targets: readonly NotificationTarget[]
  config: DeltaflowConfig
  session: Pick<Session, 'journal' | 'clock' | 'killSwitch'>
  /** The bot's token labels (shared with the console). */
  labels: TokenLabels
  /** The bot's strategies now (read at each pass). */
  strategies: () => Readonly<Record<string, StrategyStats>>
  logger: Logger
}

/** How the runtime wires notifications in: around the bot (start, stop) and its metrics (reconciliation reports). */
export type BotNotifications = {
  attach: (bot: Bot) => Bot
  observe: (metrics: BotMetrics) => BotMetrics
}

/** The bot's notifier over the session's journal and clock; without targets, the bot and its metrics unchanged. */
export function openNotifications({ targets, config, session, labels, strategies, logger }: OpenNotificationsParameters): BotNotifications {
  if (targets.length === 0) return { attach: (bot) => bot, observe: (metrics) => metrics }
  const { intervalMs, backoff } = config.notifications
  const notifier = createNotifier({
    journal: session.journal,
    targets,
    clock: session.clock,
    backoff,
    intervalMs,
    formatAmount: createTokenAmountFormatter(labels),
    botState: () => ({
      strategies: Object.fromEntries(
        Object.entries(strategies()).map(([name, stats]) => [name, { paused: stats.paused, lastError: stats.lastError?.message }]),
      ),
      killSwitch: session.killSwitch.reason,
    }),
    logger,
  })
  return {
    attach: (bot) => withNotifications(bot, notifier, { mode: config.mode, strategies: () => Object.keys(strategies()) }),
    observe: (metrics) => ({
      ...metrics,
      reconcileReport: (report) => {
        metrics.reconcileReport(report)
        notifier.reconcileMismatches(report.mismatches)
      },
    }),
  }
}
