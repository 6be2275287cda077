import type { NotificationMessage } from './notification-message.js'
import { plainTextOf } from './notification-message.js'

export type WebhookFormat = 'json' | 'slack' | 'discord'

/** Discord embed colours by severity (decimal RGB). */
const discordColours = { info: 0x2e86de, warning: 0xf39c12, error: 0xe74c3c } as const

/**
 * The JSON a webhook receives: the message as is (`json`), a Slack incoming-webhook payload (`text` for
 * notifications, `blocks` for the channel), or a Discord webhook payload (`content` plus one embed).
 */
export function webhookBodyOf(format: WebhookFormat, message: NotificationMessage): unknown {
  if (format === 'slack') {
    return {
      text: plainTextOf(message),
      blocks: [
        { type: 'header', text: { type: 'plain_text', text: message.title.slice(0, 150) } },
        ...(message.lines.length > 0
          ? [{ type: 'section', text: { type: 'mrkdwn', text: message.lines.join('\n').slice(0, 3_000) } }]
          : []),
      ],
    }
  }
  if (format === 'discord') {
    return {
      content: message.title.slice(0, 2_000),
      embeds: [{ title: message.event, description: message.lines.join('\n').slice(0, 4_096), color: discordColours[message.severity] }],
    }
  }
  return { event: message.event, severity: message.severity, title: message.title, lines: message.lines, text: plainTextOf(message) }
}
