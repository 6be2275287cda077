import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { createScaledClock } from '../../src/time/clock.js'
import { clockSpeed, everyOnClock } from '../../src/time/clock-timer.js'

describe('everyOnClock', () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: 1_700_000_000_000 })
  })
  afterEach(() => {
    vi.useRealTimers()
  })

  it('fires every interval of clock time, so a clock 60 times faster fires a minute timer every real second', () => {
    const clock = createScaledClock({ speed: 60 })
    const start = clock.now()
    const ticks: number[] = []
    const timer = everyOnClock(clock, 60_000, (now) => ticks.push(now - start))
    vi.advanceTimersByTime(3_500)
    timer.cancel()
    vi.advanceTimersByTime(5_000)
    expect(ticks).toHaveLength(3)
    ticks.forEach((elapsed, index) => {
      expect(elapsed).toBeGreaterThanOrEqual((index + 1) * 60_000)
      expect(elapsed).toBeLessThan((index + 1) * 60_000 + 1_000)
    })
  })

  it('reads the speed of a scaled clock and 1 for any other', () => {
    expect(clockSpeed(createScaledClock({ speed: 30 }))).toBe(30)
    expect(clockSpeed({ now: () => 0 })).toBe(1)
  })

  it('refuses an interval that is not positive', () => {
    expect(() => everyOnClock({ now: () => 0 }, 0, () => {})).toThrow('a timer interval must be positive, received 0')
  })
})
