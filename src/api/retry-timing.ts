/** How often and how patiently the client retries 429, 5xx, dropped connections and timeouts. */
export type RetryPolicy = {
  /** Retries after the first attempt (0 = never retry). */
  retries: number
  /** Base of the exponential backoff, ms. */
  minDelayMs: number
  /** Cap of the backoff; a Retry-After longer than this is not waited for (the error carries it). */
  maxDelayMs: number
}

/**
 * Milliseconds a Retry-After header asks to wait: delta-seconds, or an HTTP date compared with `nowMs`
 * (RFC 9110, section 10.2.3). Undefined when absent or unreadable.
 */
export function parseRetryAfter(value: string | null | undefined, nowMs: number): number | undefined {
  if (value === null || value === undefined) return undefined
  const text = value.trim()
  if (/^\d+$/.test(text)) return Number(text) * 1000
  // HTTP dates always name the weekday or month; this keeps Date.parse from reading "-5" or "1.5" as years.
  const at = /[A-Za-z]/.test(text) ? Date.parse(text) : Number.NaN
  if (Number.isNaN(at)) return undefined
  return Math.max(0, at - nowMs)
}

/**
 * Delay before retry number `retry` (1-based): exponential from `minDelayMs`, capped at `maxDelayMs`, with equal
 * jitter (half fixed, half random) so that clients failing together do not retry together.
 */
export function backoffDelay(retry: number, policy: Pick<RetryPolicy, 'minDelayMs' | 'maxDelayMs'>, random: () => number): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.minDelayMs * 2 ** Math.max(0, retry - 1))
  return Math.round(ceiling / 2 + random() * (ceiling / 2))
}
