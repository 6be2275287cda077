import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { backoffDelayMs, backoffPolicyOf } from '../../src/feed/backoff.js'

describe('backoffDelayMs', () => {
  const policyArbitrary = fc
    .record({
      initialDelayMs: fc.integer({ min: 0, max: 10_000 }),
      extra: fc.integer({ min: 0, max: 100_000 }),
      multiplier: fc.double({ min: 1, max: 4, noNaN: true }),
      jitter: fc.double({ min: 0, max: 1, noNaN: true }),
    })
    .map(({ extra, ...policy }) => backoffPolicyOf({ ...policy, maxDelayMs: policy.initialDelayMs + extra }))

  it('stays between the jittered-down nominal delay and the cap', () => {
    fc.assert(
      fc.property(
        policyArbitrary,
        fc.integer({ min: 1, max: 60 }),
        fc.double({ min: 0, max: 0.999_999, noNaN: true }),
        (policy, failures, random) => {
          const delay = backoffDelayMs(failures, policy, () => random)
          const nominal = Math.min(policy.maxDelayMs, policy.initialDelayMs * policy.multiplier ** (failures - 1))
          expect(delay).toBeLessThanOrEqual(Math.ceil(policy.maxDelayMs))
          expect(delay).toBeGreaterThanOrEqual(Math.floor(nominal * (1 - policy.jitter)))
        },
      ),
    )
  })

  it('never shrinks as failures grow when the random draw is the same', () => {
    fc.assert(
      fc.property(
        policyArbitrary,
        fc.integer({ min: 1, max: 60 }),
        fc.double({ min: 0, max: 0.999_999, noNaN: true }),
        (policy, failures, random) => {
          expect(backoffDelayMs(failures + 1, policy, () => random)).toBeGreaterThanOrEqual(backoffDelayMs(failures, policy, () => random))
        },
      ),
    )
  })

  it('doubles from the initial delay up to the cap with the default multiplier and no jitter', () => {
    const policy = backoffPolicyOf({ initialDelayMs: 100, maxDelayMs: 1_000, jitter: 0 })
    expect([1, 2, 3, 4, 5, 6].map((failures) => backoffDelayMs(failures, policy, Math.random))).toEqual([100, 200, 400, 800, 1_000, 1_000])
  })

  it('refuses a policy whose cap is below its initial delay, or a jitter above 1', () => {
    expect(() => backoffPolicyOf({ initialDelayMs: 100, maxDelayMs: 50 })).toThrow(RangeError)
    expect(() => backoffPolicyOf({ jitter: 1.5 })).toThrow(RangeError)
  })
})
