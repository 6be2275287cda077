import type { NotificationEvent, NotificationsConfig, NotificationTargetConfig } from '../../config/notifications-schema.js'
import type { AttemptOutcome } from './attempt-outcome.js'
import { NotificationTargetError } from './notification-errors.js'
import type { NotificationMessage } from './notification-message.js'
import { sendTelegram } from './send-telegram.js'
import { sendWebhook } from './send-webhook.js'

/** A target ready to send: its secrets read from the environment, kept out of everything but the request itself. */
export type NotificationTarget = {
  name: string
  events: ReadonlySet<NotificationEvent>
  perMinute: number
  /** What logs may say about it: its type and host. */
  description: string
  /** Strings that must never reach a log, an error or the journal (token, URL, URL path). */
  secrets: readonly string[]
  send: (message: NotificationMessage) => Promise<AttemptOutcome>
}

export type ResolveTargetsParameters = {
  config: NotificationsConfig
  env: Readonly<Record<string, string | undefined>>
  /** `file:line:col` of a YAML path, for errors. */
  locate: (path: readonly PropertyKey[]) => string
}

/**
 * Reads each target's secrets from the environment. A variable that is not set (or empty) throws
 * NotificationTargetError naming it and the YAML path: the bot does not start without a target it was told to use.
 */
export function resolveNotificationTargets({ config, env, locate }: ResolveTargetsParameters): NotificationTarget[] {
  return config.targets.map((target, index) => {
    const fail = (key: string, problem: string): never => {
      throw new NotificationTargetError({
        where: `${locate(['notifications', 'targets', index, key])} (notifications.targets.${index}.${key})`,
        target: target.name,
        problem,
      })
    }
    const read = (key: 'urlEnv' | 'tokenEnv', name: string): string =>
      env[name]?.trim() || fail(key, `environment variable ${name} is not set`)
    if (target.type === 'telegram') return telegramTarget(target, read('tokenEnv', target.tokenEnv))
    const url = target.url ?? read('urlEnv', target.urlEnv ?? '')
    // The variable's value is a secret: the problem names the variable, not what it holds.
    if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol))
      fail('urlEnv', `environment variable ${target.urlEnv} does not hold an http(s) URL`)
    return webhookTarget(target, url)
  })
}

type TelegramTargetConfig = Extract<NotificationTargetConfig, { type: 'telegram' }>
type WebhookTargetConfig = Extract<NotificationTargetConfig, { type: 'webhook' }>

function telegramTarget(target: TelegramTargetConfig, token: string): NotificationTarget {
  const { baseUrl, chatId, timeoutMs } = target
  return {
    name: target.name,
    events: new Set(target.events),
    perMinute: target.perMinute,
    description: `telegram ${new URL(baseUrl).host}`,
    secrets: [token],
    send: (message) => sendTelegram({ baseUrl, token, chatId, message, timeoutMs }),
  }
}

function webhookTarget(target: WebhookTargetConfig, url: string): NotificationTarget {
  const { format, timeoutMs } = target
  const { host, pathname, search } = new URL(url)
  const path = `${pathname}${search}`
  return {
    name: target.name,
    events: new Set(target.events),
    perMinute: target.perMinute,
    description: `webhook (${format}) ${host}`,
    // The path and query of Slack and Discord URLs are their secret.
    secrets: path.length > 1 ? [url, path] : [url],
    send: (message) => sendWebhook({ url, format, message, timeoutMs }),
  }
}
