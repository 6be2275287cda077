import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { checkTwapSchedule, getTwapSliceAmount, planTwapSlices } from '../../src/protocol/twap.js'

describe('TWAP slicing', () => {
  const slicingArbitrary = fc
    .integer({ min: 2, max: 500 })
    .chain((numSlices) => fc.tuple(fc.constant(numSlices), fc.bigInt({ min: BigInt(numSlices), max: 1n << 200n })))

  it('sums to the total, every slice but the last is floor(total / numSlices), none is zero', () => {
    fc.assert(
      fc.property(slicingArbitrary, ([numSlices, total]) => {
        const slices = planTwapSlices(total, numSlices)
        const floor = total / BigInt(numSlices)
        expect(slices).toHaveLength(numSlices)
        expect(slices.reduce((a, b) => a + b, 0n)).toBe(total)
        for (const slice of slices.slice(0, -1)) expect(slice).toBe(floor)
        expect(slices.at(-1)).toBe(floor + (total % BigInt(numSlices)))
        expect(slices.every((slice) => slice >= 1n)).toBe(true)
      }),
    )
  })

  it('gives the slice the route must quote: floor(total / numSlices)', () => {
    expect(getTwapSliceAmount(1_000_003n, 4, 0)).toBe(250_000n)
    expect(getTwapSliceAmount(1_000_003n, 4, 3)).toBe(250_003n)
  })

  it('refuses a total that would leave a slice at 0 wei', () => {
    expect(() => planTwapSlices(3n, 4)).toThrow(/total must be >= numSlices/)
  })

  it('enforces interval >= 60 s, >= 2 slices and a deadline after now + numSlices × interval', () => {
    const now = 1_700_000_000n
    expect(() => checkTwapSchedule({ numSlices: 4, interval: 60n, deadline: now + 240n, now })).not.toThrow()
    expect(() => checkTwapSchedule({ numSlices: 4, interval: 60n, deadline: now + 239n, now })).toThrow(/enough time for all slices/)
    expect(() => checkTwapSchedule({ numSlices: 4, interval: 59n, deadline: now + 10_000n, now })).toThrow(/at least 60/)
    expect(() => checkTwapSchedule({ numSlices: 1, interval: 60n, deadline: now + 10_000n, now })).toThrow(/at least 2/)
  })
})
