/**
 * The realistic fill model's draws and impact (src/backtest/README.md, "Fill model"): pure functions of their inputs,
 * amounts in bigint, moves in bps.
 */

/**
 * The seed of the auction draws' stream, apart from the bridge failures' stream of the same run seed: drawing an
 * auction never shifts which bridge fails. A bijection, so two run seeds never share an auction stream.
 */
export function auctionSeedOf(seed: number): number {
  return (seed ^ 0x5f3759df) >>> 0
}

/**
 * Standard normal draws from a uniform stream in [0, 1) (Box–Muller, both values of a pair used in turn). The uniform
 * is taken as 1 − u, so the logarithm never sees 0: draws stay within ±6.7.
 */
export function createNormalRandom(uniform: () => number): () => number {
  let spare: number | undefined
  return () => {
    if (spare !== undefined) {
      const value = spare
      spare = undefined
      return value
    }
    const radius = Math.sqrt(-2 * Math.log(1 - uniform()))
    const angle = 2 * Math.PI * uniform()
    spare = radius * Math.sin(angle)
    return radius * Math.cos(angle)
  }
}

/**
 * `amount` moved by `bps` (positive: more, negative: less), in hundredths of a bps, rounded against the trader: down
 * for an amount received, up for an amount paid. Never below 0.
 */
export function shiftByBps(amount: bigint, bps: number, rounding: 'down' | 'up'): bigint {
  const factor = 1_000_000n + BigInt(Math.round(bps * 100))
  if (factor <= 0n) return 0n
  const scaled = amount * factor
  return rounding === 'down' ? scaled / 1_000_000n : (scaled + 999_999n) / 1_000_000n
}

/** A priced trade: what is paid and what is received. */
export type PricedAmounts = { srcAmount: bigint; destAmount: bigint }

/**
 * How much worse a trade's price is than a reference's (the smallest recorded size of its pair), in bps, 0 when it
 * is not worse. SELL: less received per unit paid; BUY: more paid per unit received.
 */
export function sizeImpactBps(side: 'SELL' | 'BUY', reference: PricedAmounts, trade: PricedAmounts): number {
  const { srcAmount: refSrc, destAmount: refDest } = reference
  const { srcAmount: src, destAmount: dest } = trade
  if (refSrc <= 0n || refDest <= 0n || src <= 0n || dest <= 0n) return 0
  // Ratios of the two prices, scaled by 10^12 before the division so that a fraction of a bps survives.
  const scale = 1_000_000_000_000n
  const ratio =
    side === 'SELL' ? Number((dest * refSrc * scale) / (src * refDest)) / 1e12 : Number((src * refDest * scale) / (dest * refSrc)) / 1e12
  const impact = side === 'SELL' ? (1 - ratio) * 10_000 : (ratio - 1) * 10_000
  return Math.max(impact, 0)
}
