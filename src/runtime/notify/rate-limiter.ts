/** Takes one send from a target's budget, or says it must wait. */
export type RateLimiter = { tryTake: () => boolean }

/**
 * A token bucket: `perMinute` sends a minute on average, in bursts of at most `burst` (default a tenth of a minute's
 * budget, at least 1). `now` counts real ms (performance.now), injected by tests.
 */
export function createRateLimiter({
  perMinute,
  burst = Math.max(1, Math.ceil(perMinute / 10)),
  now = () => performance.now(),
}: {
  perMinute: number
  burst?: number | undefined
  now?: (() => number) | undefined
}): RateLimiter {
  let tokens = burst
  let last = now()
  return {
    tryTake: () => {
      const at = now()
      tokens = Math.min(burst, tokens + ((at - last) * perMinute) / 60_000)
      last = at
      if (tokens < 1) return false
      tokens -= 1
      return true
    },
  }
}
