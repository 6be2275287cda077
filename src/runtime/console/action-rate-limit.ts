/**
 * A fixed window over all clients: at most `perMinute` actions in each minute of real time. Returns 0 when an action
 * may run, else the seconds until the window opens again (the Retry-After).
 */
export function createActionRateLimit(perMinute: number, now: () => number = Date.now): () => number {
  let windowStart = Number.NEGATIVE_INFINITY
  let used = 0
  return () => {
    const at = now()
    if (at - windowStart >= 60_000) {
      windowStart = at
      used = 0
    }
    if (used >= perMinute) return Math.max(1, Math.ceil((windowStart + 60_000 - at) / 1000))
    used += 1
    return 0
  }
}
