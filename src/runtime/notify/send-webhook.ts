import { parseRetryAfter } from '../../api/retry-timing.js'
import { type AttemptOutcome, outcomeOfNetworkError, outcomeOfStatus } from './attempt-outcome.js'
import type { NotificationMessage } from './notification-message.js'
import { type WebhookFormat, webhookBodyOf } from './webhook-body.js'

export type SendWebhookParameters = {
  url: string
  format: WebhookFormat
  message: NotificationMessage
  timeoutMs: number
}

/** POSTs the message as JSON to the webhook; a 2xx delivers it. The outcome's error may hold the URL: redact it. */
export async function sendWebhook({ url, format, message, timeoutMs }: SendWebhookParameters): Promise<AttemptOutcome> {
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(webhookBodyOf(format, message)),
      signal: AbortSignal.timeout(timeoutMs),
      redirect: 'error',
    })
    const text = await response.text().catch(() => '')
    return outcomeOfStatus(response.status, response.ok ? '' : text, parseRetryAfter(response.headers.get('retry-after'), Date.now()))
  } catch (error) {
    return outcomeOfNetworkError(error)
  }
}
