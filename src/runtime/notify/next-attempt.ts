export type Backoff = { initialMs: number; maxMs: number }

/**
 * The wait before the next attempt of a message that failed `attempts` times (1 after the first failure): `initialMs`
 * doubling with each failure up to `maxMs`, or the receiver's own Retry-After when it is longer. Real ms.
 */
export function retryDelayMs({ initialMs, maxMs }: Backoff, attempts: number, retryAfterMs?: number | undefined): number {
  const doubled = initialMs * 2 ** Math.min(Math.max(attempts - 1, 0), 40)
  return Math.max(Math.min(doubled, maxMs), retryAfterMs ?? 0)
}
