import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { backoffDelay, parseRetryAfter } from '../../src/api/retry-timing.js'

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-03-01T12:00:00Z')

  it('reads delta-seconds as milliseconds', () => {
    expect(parseRetryAfter('3', now)).toBe(3_000)
    expect(parseRetryAfter(' 0 ', now)).toBe(0)
  })

  it('reads an HTTP date against the given clock', () => {
    expect(parseRetryAfter('Sun, 01 Mar 2026 12:00:05 GMT', now)).toBe(5_000)
  })

  it('answers 0 for an HTTP date already past', () => {
    expect(parseRetryAfter('Sun, 01 Mar 2026 11:59:00 GMT', now)).toBe(0)
  })

  it.each([null, undefined, '', 'soon', '-5', '1.5'])('answers undefined for %j', (value) => {
    expect(parseRetryAfter(value, now)).toBeUndefined()
  })
})

describe('backoffDelay', () => {
  const policy = { minDelayMs: 100, maxDelayMs: 5_000 }

  it('stays between half and all of min(maxDelayMs, minDelayMs x 2^(retry-1))', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 40 }), fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), (retry, random) => {
        const ceiling = Math.min(policy.maxDelayMs, policy.minDelayMs * 2 ** (retry - 1))
        const delay = backoffDelay(retry, policy, () => random)
        expect(delay).toBeGreaterThanOrEqual(Math.floor(ceiling / 2))
        expect(delay).toBeLessThanOrEqual(ceiling)
      }),
    )
  })

  it('doubles the ceiling per retry until the cap', () => {
    const top = (retry: number) => backoffDelay(retry, policy, () => 1)
    expect([1, 2, 3, 4, 5, 6, 7].map(top)).toEqual([100, 200, 400, 800, 1_600, 3_200, 5_000])
  })
})
