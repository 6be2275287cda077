import { z } from 'zod'
import { notificationEvents } from '../../config/notifications-schema.js'

/**
 * What a notification says, independent of where it goes: a title and lines of plain text. Built once when the event
 * is queued (stored in the outbox as JSON) and shaped for each target when sent. It never holds a key, a token or a URL.
 */
export const notificationMessageSchema = z.object({
  event: z.enum(notificationEvents),
  severity: z.enum(['info', 'warning', 'error']),
  title: z.string(),
  lines: z.array(z.string()),
})

export type NotificationMessage = z.output<typeof notificationMessageSchema>

/** The message as one block of plain text: the title, then its lines. */
export function plainTextOf(message: NotificationMessage): string {
  return [message.title, ...message.lines].join('\n')
}
