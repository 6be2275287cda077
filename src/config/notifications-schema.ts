import { z } from 'zod'

/** What a notification target can ask to be told about. */
export const notificationEvents = [
  'fill',
  'intent-failed',
  'intent-refused',
  'strategy-paused',
  'kill-switch',
  'reconcile-mismatch',
  'bot-start',
  'bot-stop',
  'daily-summary',
] as const

export type NotificationEvent = (typeof notificationEvents)[number]

const environmentVariableName = z.string().regex(/^[A-Z_][A-Z0-9_]*$/, 'expected an environment variable name such as SLACK_WEBHOOK_URL')

const targetFields = {
  /** Names the target in logs and in the outbox (its rows are keyed by it: renaming a target sends its events again). */
  name: z.string().regex(/^[a-z0-9][a-z0-9_-]*$/i, 'expected a name of letters, digits, - and _'),
  /** Default: every event. */
  events: z
    .array(z.enum(notificationEvents))
    .min(1)
    .default([...notificationEvents]),
  /** At most this many messages a minute to the target; the rest wait their turn in the outbox. */
  perMinute: z.number().int().min(1).max(6_000).default(20),
  /** A receiver that has not answered within this many ms counts as a failed attempt, retried later. */
  timeoutMs: z.number().int().min(100).max(120_000).default(10_000),
}

/** A JSON POST: the neutral shape (`json`), or the incoming-webhook shapes of Slack or Discord. */
export const webhookTargetSchema = z
  .strictObject({
    type: z.literal('webhook'),
    ...targetFields,
    /** Slack and Discord URLs embed their secret: prefer `urlEnv`. */
    url: z.url({ protocol: /^https?$/ }).optional(),
    /** An environment variable holding the URL. */
    urlEnv: environmentVariableName.optional(),
    format: z.enum(['json', 'slack', 'discord']).default('json'),
  })
  .refine((target) => (target.url === undefined) !== (target.urlEnv === undefined), {
    message: 'expected exactly one of url and urlEnv',
  })

/** The Telegram Bot API: POST {baseUrl}/bot{token}/sendMessage. */
export const telegramTargetSchema = z.strictObject({
  type: z.literal('telegram'),
  ...targetFields,
  /** An environment variable holding the bot token (never the token itself). */
  tokenEnv: environmentVariableName,
  chatId: z.union([z.string().min(1), z.number().int()]),
  baseUrl: z.url({ protocol: /^https?$/ }).default('https://api.telegram.org'),
})

/** Section `notifications` of a bot's config: where to tell the operator what happens, and how often to try. */
export const notificationsConfigSchema = z.strictObject({
  /** Real ms between two passes over the journal and the outbox. */
  intervalMs: z.number().int().min(50).max(600_000).default(2_000),
  /** Delays between attempts of one message, ms of the bot's clock: doubling from `initialMs` up to `maxMs`. */
  backoff: z
    .strictObject({
      initialMs: z.number().int().min(1).default(5_000),
      maxMs: z.number().int().min(1).default(600_000),
    })
    .default({ initialMs: 5_000, maxMs: 600_000 }),
  targets: z
    .array(z.discriminatedUnion('type', [webhookTargetSchema, telegramTargetSchema]))
    .default([])
    .superRefine((targets, context) => {
      const seen = new Set<string>()
      targets.forEach((target, index) => {
        if (seen.has(target.name)) {
          context.addIssue({
            code: 'custom',
            path: [index, 'name'],
            message: `expected a unique target name, "${target.name}" is used twice`,
          })
        }
        seen.add(target.name)
      })
    }),
})

export type NotificationsConfig = z.output<typeof notificationsConfigSchema>
export type NotificationTargetConfig = NotificationsConfig['targets'][number]
