import type { Clock } from './clock.js'

/** A repeating timer counted on a clock; `cancel()` stops it. */
export type ClockTimer = { cancel: () => void }

/** How many clock milliseconds pass per real millisecond: a ScaledClock's speed, else 1. */
export function clockSpeed(clock: Clock): number {
  const speed = (clock as { speed?: unknown }).speed
  return typeof speed === 'number' && speed > 0 ? speed : 1
}

/**
 * Calls `tick(now)` every `intervalMs` of `clock` time: on a clock running 60 times faster than real time, a 60_000 ms
 * interval fires every real second. Due times are kept on the clock (start + k × interval), so delays do not add up;
 * ticks missed while the process was busy are not replayed, the next due time is the next one ahead.
 */
export function everyOnClock(clock: Clock, intervalMs: number, tick: (now: number) => void): ClockTimer {
  if (!(intervalMs > 0)) throw new RangeError(`a timer interval must be positive, received ${intervalMs}`)
  const speed = clockSpeed(clock)
  let due = clock.now() + intervalMs
  let handle: ReturnType<typeof setTimeout> | undefined
  let cancelled = false

  function schedule(): void {
    handle = setTimeout(fire, Math.max(0, (due - clock.now()) / speed))
  }

  function fire(): void {
    if (cancelled) return
    const now = clock.now()
    // A timer woken a little early (the real delay is rounded) waits for its due time.
    if (now < due) {
      schedule()
      return
    }
    while (due <= now) due += intervalMs
    tick(now)
    if (!cancelled) schedule()
  }

  schedule()
  return {
    cancel: () => {
      cancelled = true
      if (handle !== undefined) clearTimeout(handle)
    },
  }
}
