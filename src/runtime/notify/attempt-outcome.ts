/**
 * What one attempt to deliver a message came to. `retry`: try again later (5xx, 408, 429, a network error or a
 * timeout), not before `retryAfterMs` real ms when the receiver said so; `rejected`: the receiver refused it for good
 * (another 4xx), never tried again. `error` holds no secret.
 */
export type AttemptOutcome =
  | { outcome: 'delivered'; status: number }
  | { outcome: 'retry'; error: string; retryAfterMs?: number | undefined }
  | { outcome: 'rejected'; error: string }

/** The outcome of an HTTP answer that is not a 2xx, with the receiver's own wait when it gave one. */
export function outcomeOfStatus(status: number, description: string, retryAfterMs: number | undefined): AttemptOutcome {
  if (status >= 200 && status < 300) return { outcome: 'delivered', status }
  const error = `HTTP ${status}${description === '' ? '' : `: ${description.slice(0, 200)}`}`
  if (status === 408 || status === 429 || status >= 500) return { outcome: 'retry', error, retryAfterMs }
  return { outcome: 'rejected', error }
}

/** The outcome of a request that got no answer: refused, reset, or cut by its timeout. */
export function outcomeOfNetworkError(error: unknown): AttemptOutcome {
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) {
    return { outcome: 'retry', error: 'no answer before the timeout' }
  }
  const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : ''
  return { outcome: 'retry', error: `${error instanceof Error ? error.message : String(error)}${cause}` }
}
