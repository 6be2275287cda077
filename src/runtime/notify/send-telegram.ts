import { z } from 'zod'
import { parseRetryAfter } from '../../api/retry-timing.js'
import { type AttemptOutcome, outcomeOfNetworkError, outcomeOfStatus } from './attempt-outcome.js'
import type { NotificationMessage } from './notification-message.js'

export type SendTelegramParameters = {
  /** Default https://api.telegram.org; a test points it at a fake Bot API. */
  baseUrl: string
  token: string
  chatId: string | number
  message: NotificationMessage
  timeoutMs: number
}

/** The Bot API's answer to a failed call; `parameters.retry_after` (seconds) comes with a 429. */
const telegramErrorSchema = z.object({
  ok: z.literal(false),
  description: z.string().optional(),
  parameters: z.object({ retry_after: z.number().nonnegative().optional() }).optional(),
})

/** `<`, `>` and `&` escaped for parse_mode HTML. */
function escapeHtml(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;')
}

/** The message as Telegram HTML: the title in bold, then its lines. */
export function telegramTextOf(message: NotificationMessage): string {
  return [`<b>${escapeHtml(message.title)}</b>`, ...message.lines.map(escapeHtml)].join('\n').slice(0, 4_096)
}

/**
 * Calls the Bot API's sendMessage (POST {baseUrl}/bot{token}/sendMessage). The token is in the path: the outcome's
 * error is the API's description, never the URL; callers still redact it.
 */
export async function sendTelegram({ baseUrl, token, chatId, message, timeoutMs }: SendTelegramParameters): Promise<AttemptOutcome> {
  try {
    const response = await fetch(`${baseUrl.replace(/\/+$/, '')}/bot${token}/sendMessage`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ chat_id: chatId, text: telegramTextOf(message), parse_mode: 'HTML', disable_web_page_preview: true }),
      signal: AbortSignal.timeout(timeoutMs),
      redirect: 'error',
    })
    if (response.ok) return outcomeOfStatus(response.status, '', undefined)
    const text = await response.text().catch(() => '')
    const parsed = telegramErrorSchema.safeParse(safeJson(text))
    const retryAfterSeconds = parsed.success ? parsed.data.parameters?.retry_after : undefined
    const retryAfterMs =
      retryAfterSeconds === undefined ? parseRetryAfter(response.headers.get('retry-after'), Date.now()) : retryAfterSeconds * 1000
    return outcomeOfStatus(response.status, parsed.success ? (parsed.data.description ?? '') : '', retryAfterMs)
  } catch (error) {
    return outcomeOfNetworkError(error)
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}
