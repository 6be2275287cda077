import { type ExactPrice, formatScaled, type PriceGrid, type PriceLevel, roundPrice, shiftPrice } from '../../src/index.js'

export type BuildGridParameters = {
  mid: ExactPrice
  /** Move of the mid against the inventory (inventorySkewBps), basis points. */
  skewBps: number
  levels: number
  /** From the skewed mid to the first bid and the first ask. */
  spreadBps: number
  /** Between two levels of a side. */
  stepBps: number
  /** Raw base units of the first level. */
  size: bigint
  /** Growth of each level over the one before it. */
  sizeGrowthBps: number
  /** What the asks may sell (raw base) and the bids may pay (raw quote). */
  baseAvailable: bigint
  quoteAvailable: bigint
  baseDecimals: number
  quoteDecimals: number
  priceDecimals: number
}

export type BuiltGrid = {
  grid: PriceGrid
  /** What the grid can take at most: raw base sold by the asks, raw quote paid by the bids (rounded up per level). */
  baseUsed: bigint
  quoteUsed: bigint
}

/**
 * A grid around the skewed mid: `levels` bids at mid × (1 − (spread + k × step)) and asks at mid × (1 + …), prices
 * rounded outward (bids down, asks up) to `priceDecimals`, amounts down to the base token's decimals. Level k holds
 * size × (1 + growth)^k base, until the asks have sold `baseAvailable` or the bids have spent `quoteAvailable` (the
 * level that reaches it is cut, the rest dropped). Best level first; levels that round to the same price are merged;
 * never crossed (spreadBps > 0 and outward rounding keep every bid below the mid below every ask).
 */
export function buildGrid(parameters: BuildGridParameters): BuiltGrid {
  const { levels, spreadBps, stepBps, priceDecimals, baseDecimals, quoteDecimals } = parameters
  const mid = shiftPrice(parameters.mid, BigInt(parameters.skewBps))
  const priceUnit = 10n ** BigInt(priceDecimals)
  const baseUnit = 10n ** BigInt(baseDecimals)
  const quoteUnit = 10n ** BigInt(quoteDecimals)
  const sizes = levelSizes(parameters)
  const bids: [bigint, bigint][] = []
  const asks: [bigint, bigint][] = []
  let baseLeft = parameters.baseAvailable
  let quoteLeft = parameters.quoteAvailable
  for (let level = 0; level < levels; level++) {
    const size = sizes[level] ?? 0n
    const distance = BigInt(spreadBps + level * stepBps)
    const bidPrice = roundPrice(shiftPrice(mid, -distance), priceDecimals, 'down')
    if (bidPrice > 0n && quoteLeft > 0n) {
      // What a user selling `amount` base receives, raw quote units, rounded up here to stay within the balance.
      const cost = (amount: bigint) => ceilDivide(amount * bidPrice * quoteUnit, baseUnit * priceUnit)
      const amount = cost(size) <= quoteLeft ? size : (quoteLeft * baseUnit * priceUnit) / (bidPrice * quoteUnit)
      if (amount > 0n) {
        quoteLeft -= cost(amount)
        pushLevel(bids, bidPrice, amount)
      }
    }
    const askPrice = roundPrice(shiftPrice(mid, distance), priceDecimals, 'up')
    if (baseLeft > 0n) {
      const amount = size <= baseLeft ? size : baseLeft
      if (amount > 0n) {
        baseLeft -= amount
        pushLevel(asks, askPrice, amount)
      }
    }
  }
  const toLevels = (side: [bigint, bigint][]): PriceLevel[] =>
    side.map(([price, amount]) => [formatScaled(price, priceDecimals), formatScaled(amount, baseDecimals)])
  const grid: { bids?: PriceLevel[]; asks?: PriceLevel[] } = {}
  if (bids.length > 0) grid.bids = toLevels(bids)
  if (asks.length > 0) grid.asks = toLevels(asks)
  return { grid, baseUsed: parameters.baseAvailable - baseLeft, quoteUsed: parameters.quoteAvailable - quoteLeft }
}

/** Raw base units of each level: size × (1 + growth)^k, rounded down. */
export function levelSizes({ size, sizeGrowthBps, levels }: Pick<BuildGridParameters, 'size' | 'sizeGrowthBps' | 'levels'>): bigint[] {
  const growth = 10_000n + BigInt(sizeGrowthBps)
  const sizes: bigint[] = []
  let numerator = size
  let denominator = 1n
  for (let level = 0; level < levels; level++) {
    sizes.push(numerator / denominator)
    numerator *= growth
    denominator *= 10_000n
  }
  return sizes
}

function pushLevel(side: [bigint, bigint][], price: bigint, amount: bigint): void {
  const last = side.at(-1)
  if (last && last[0] === price) last[1] += amount
  else side.push([price, amount])
}

function ceilDivide(numerator: bigint, denominator: bigint): bigint {
  return (numerator + denominator - 1n) / denominator
}
