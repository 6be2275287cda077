import type { Bot } from '../bot.js'
import type { Notifier } from './notifier.js'

/** The bot with its notifier: notifications start once the bot has started, and stop after it has stopped. */
export function withNotifications(
  bot: Bot,
  notifier: Notifier,
  { mode, strategies }: { mode: string; strategies: () => readonly string[] },
): Bot {
  return {
    ...bot,
    start: async () => {
      await bot.start()
      notifier.start({ mode, strategies: strategies() })
    },
    stop: async () => {
      const report = await bot.stop()
      await notifier.stop({ pendingOrders: report.pending.length })
      return report
    },
  }
}
