import type { ExactPrice } from '../../src/index.js'

export type InventorySkewParameters = {
  /** Wallet balances, raw units. */
  baseBalance: bigint
  quoteBalance: bigint
  mid: ExactPrice
  baseDecimals: number
  quoteDecimals: number
  /** The share of the pair's value to hold in base, basis points (1..9999). */
  targetBaseShareBps: number
  maxSkewBps: number
}

/**
 * How far to move the mid against the inventory, in whole basis points (truncated toward zero): holding more base
 * than the target share moves it down (cheaper asks sell the surplus, lower bids buy less), holding less moves it up.
 * Linear in the distance from the target, scaled so that all base gives −maxSkewBps and no base +maxSkewBps.
 */
export function inventorySkewBps({
  baseBalance,
  quoteBalance,
  mid,
  baseDecimals,
  quoteDecimals,
  targetBaseShareBps,
  maxSkewBps,
}: InventorySkewParameters): number {
  if (maxSkewBps === 0) return 0
  // Base value in raw quote units: baseBalance × price × 10^qd / 10^bd = valueN / valueD.
  const valueN = baseBalance * mid.numerator * 10n ** BigInt(quoteDecimals)
  const valueD = mid.denominator * 10n ** BigInt(baseDecimals)
  const totalN = valueN + quoteBalance * valueD
  if (totalN === 0n) return 0
  // Share of base in bps = valueN × 10000 / totalN; its distance from the target over the room on that side.
  const target = BigInt(targetBaseShareBps)
  const distance = valueN * 10_000n - target * totalN
  const room = (distance > 0n ? 10_000n - target : target) * totalN
  const skew = -(distance * BigInt(maxSkewBps)) / room
  return Number(skew)
}
