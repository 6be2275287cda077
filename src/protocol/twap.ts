import { ProtocolEncodingError } from './errors.js'

/** Shortest TWAP interval the service accepts, seconds. */
export const minTwapIntervalSeconds = 60n
export const minTwapSlices = 2

/**
 * Amount of slice `index` (0-based) of a TWAP total: every slice is `floor(total / numSlices)` — the amount the
 * service's route must quote — and the last slice also carries the remainder, so the slices sum to the total.
 */
export function getTwapSliceAmount(total: bigint, numSlices: number, index: number): bigint {
  checkSlicing(total, numSlices)
  if (!Number.isInteger(index) || index < 0 || index >= numSlices) {
    throw new ProtocolEncodingError('TWAP slice index out of range', { index, numSlices })
  }
  const base = total / BigInt(numSlices)
  return index === numSlices - 1 ? base + (total % BigInt(numSlices)) : base
}

/** Every slice of a TWAP total, in order. Their sum is exactly `total`. */
export function planTwapSlices(total: bigint, numSlices: number): bigint[] {
  checkSlicing(total, numSlices)
  const slices = Array.from({ length: numSlices }, (_, index) => getTwapSliceAmount(total, numSlices, index))
  const sum = slices.reduce((accumulator, slice) => accumulator + slice, 0n)
  if (sum !== total) throw new ProtocolEncodingError('TWAP slices do not sum to the total', { total, sum })
  return slices
}

export type TwapScheduleParameters = {
  numSlices: number
  /** Seconds. */
  interval: bigint
  /** Unix seconds. */
  deadline: bigint
  /** Unix seconds, from the injected clock. */
  now: bigint
}

/** The service's TWAP rules: interval ≥ 60 s, ≥ 2 slices, and a deadline after now + numSlices × interval. */
export function checkTwapSchedule({ numSlices, interval, deadline, now }: TwapScheduleParameters): void {
  if (!Number.isInteger(numSlices) || numSlices < minTwapSlices) {
    throw new ProtocolEncodingError(`TWAP numSlices must be an integer of at least ${minTwapSlices}`, { numSlices })
  }
  if (interval < minTwapIntervalSeconds) {
    throw new ProtocolEncodingError(`TWAP interval must be at least ${minTwapIntervalSeconds} seconds`, { interval })
  }
  const earliest = now + BigInt(numSlices) * interval
  if (deadline < earliest) {
    throw new ProtocolEncodingError('deadline must allow enough time for all slices to execute', {
      deadline,
      earliestDeadline: earliest,
      numSlices,
      interval,
    })
  }
}

function checkSlicing(total: bigint, numSlices: number): void {
  if (!Number.isInteger(numSlices) || numSlices < 1 || numSlices > 0xffffffff) {
    throw new ProtocolEncodingError('TWAP numSlices must be a uint32 of at least 1', { numSlices })
  }
  if (total < BigInt(numSlices)) {
    throw new ProtocolEncodingError('TWAP total must be >= numSlices so that no slice rounds to 0 wei', { total, numSlices })
  }
}
