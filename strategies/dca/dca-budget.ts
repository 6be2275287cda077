import type { DcaPrice } from './dca-config.js'

/** What the budget reads of an order record (dca-state.ts). */
type BudgetRecord = { phase: string; orderStatus: string | null; totalSrcAmount: bigint; spent: bigint }

/**
 * What one order holds of the budget: its whole total until it is settled; once settled, what its fills spent (the
 * total when it COMPLETED: every slice was taken). A fill heard after settlement still counts. A placement that failed
 * without an order holds nothing (it has no fills).
 */
export function committedBy(record: BudgetRecord): bigint {
  if (record.phase === 'failed') return record.spent
  if (record.phase === 'settled' && record.orderStatus !== 'COMPLETED') return record.spent
  // Unsettled or COMPLETED: the whole total (fills above it, which a TWAP cannot have, would still count).
  if (record.spent > record.totalSrcAmount) return record.spent
  return record.totalSrcAmount
}

/** The budget taken by the schedule's orders, settled or not. */
export function committedAmount(records: readonly BudgetRecord[]): bigint {
  return records.reduce((sum, record) => sum + committedBy(record), 0n)
}

/** What may still be committed: never below 0 (a late fill may have spent more than was expected). */
export function remainingBudget(budget: bigint, committed: bigint): bigint {
  return budget > committed ? budget - committed : 0n
}

export type NextOrderAmountParameters = {
  remaining: bigint
  /** Slots of the schedule not yet placed or skipped, this one included (at least 1). */
  slotsLeft: number
  slicesPerOrder: number
}

/**
 * The total of the next TWAP: the remaining budget shared evenly over the slots left (the last takes all of it), so
 * what a skipped slot or an unfilled slice did not spend is spread over the later orders. At least one raw unit per
 * slice; 0 when the remaining budget cannot give that (nothing more can be bought). Never above `remaining`.
 */
export function nextOrderAmount({ remaining, slotsLeft, slicesPerOrder }: NextOrderAmountParameters): bigint {
  if (slotsLeft < 1) throw new RangeError(`slotsLeft must be at least 1, received ${slotsLeft}`)
  const least = BigInt(slicesPerOrder)
  if (remaining < least) return 0n
  const share = slotsLeft === 1 ? remaining : remaining / BigInt(slotsLeft)
  return share < least ? least : share
}

/**
 * The least destination amount a slice of a TWAP of `totalSrcAmount` in `numSlices` may give so that its price is not
 * above `maxPrice`: ceil(floor(total / numSlices) × destAmount / srcAmount), at least 1. (The last slice also carries
 * the rounding remainder of the total, so its own price is a hair better than the limit.)
 */
export function minDestAmountPerSlice(totalSrcAmount: bigint, numSlices: number, maxPrice: DcaPrice): bigint {
  const slice = totalSrcAmount / BigInt(numSlices)
  const numerator = slice * maxPrice.destAmount
  const least = numerator === 0n ? 0n : (numerator - 1n) / maxPrice.srcAmount + 1n
  return least > 0n ? least : 1n
}
