// Ladder prices as exact fractions of quote per base (human units), and the raw amounts they give. Prices enter as
// decimal strings scaled by 10^18; a linear ladder stays exact, a geometric one is floored to 10^-18 (an integer root).

/** Fractional digits a configured price may have; prices are held scaled by 10^this. */
export const priceDecimals = 18
export const priceScale = 10n ** BigInt(priceDecimals)

/** A price (quote per base, human units) as numerator / denominator, both positive. */
export type LadderPrice = { numerator: bigint; denominator: bigint }

export type Spacing = 'linear' | 'geometric'

export type LadderGrid = {
  /** Scaled by priceScale. */
  lowerPrice: bigint
  /** Scaled by priceScale; above lowerPrice. */
  upperPrice: bigint
  /** At least 2: level 0 is at lowerPrice, level `levels - 1` at upperPrice. */
  levels: number
  spacing: Spacing
}

const decimalPattern = new RegExp(`^(\\d{1,30})(?:\\.(\\d{1,${priceDecimals}}))?$`)

/** A decimal string ("2450.5") as an integer scaled by 10^18; undefined when it is not one. */
export function parseDecimalPrice(text: string): bigint | undefined {
  const match = decimalPattern.exec(text)
  if (!match) return undefined
  const [, whole = '0', fraction = ''] = match
  return BigInt(whole) * priceScale + BigInt(fraction.padEnd(priceDecimals, '0'))
}

/**
 * The price of grid step `index`: 0 is lowerPrice, `levels - 1` upperPrice, and one step beyond either end (-1 and
 * `levels`) is where a flipped level trades. Linear: lower + index · (upper − lower) / (levels − 1), exact. Geometric:
 * lower · (upper / lower)^(index / (levels − 1)), the (levels − 1)-th root of lower^(levels−1−index) · upper^index
 * floored to 10^-18. Undefined when the step has no positive price (below zero on a linear grid).
 */
export function gridPrice(grid: LadderGrid, index: number): LadderPrice | undefined {
  const steps = BigInt(grid.levels - 1)
  const at = BigInt(index)
  if (grid.spacing === 'linear') {
    const numerator = grid.lowerPrice * steps + (grid.upperPrice - grid.lowerPrice) * at
    return numerator > 0n ? { numerator, denominator: steps * priceScale } : undefined
  }
  const lowerPower = steps - at
  let numerator = 1n
  let denominator = 1n
  if (lowerPower >= 0n) numerator *= grid.lowerPrice ** lowerPower
  else denominator *= grid.lowerPrice ** -lowerPower
  if (at >= 0n) numerator *= grid.upperPrice ** at
  else denominator *= grid.upperPrice ** -at
  const scaled = integerRoot(numerator / denominator, steps)
  return scaled > 0n ? { numerator: scaled, denominator: priceScale } : undefined
}

/** The floor of the k-th root of a non-negative integer (Newton's method from above). */
export function integerRoot(value: bigint, k: bigint): bigint {
  if (value < 0n || k < 1n) throw new RangeError(`integerRoot: expected value ≥ 0 and k ≥ 1, received ${value}, ${k}`)
  if (value < 2n || k === 1n) return value
  // 2^ceil(bits / k) is at least the root, and Newton's iterates decrease monotonically to the floor from there.
  let estimate = 1n << BigInt(Math.ceil(value.toString(2).length / Number(k)))
  for (;;) {
    const next = ((k - 1n) * estimate + value / estimate ** (k - 1n)) / k
    if (next >= estimate) return estimate
    estimate = next
  }
}

export type QuoteAmountParameters = {
  /** Raw units of the base token. */
  baseAmount: bigint
  price: LadderPrice
  baseDecimals: number
  quoteDecimals: number
  /** `up` when the quote amount is a least-received limit, `down` when it is spent: never worse than the price. */
  rounding: 'up' | 'down'
}

/** Raw quote units worth `baseAmount` raw base units at `price`: base · price · 10^quoteDecimals / 10^baseDecimals. */
export function quoteAmountAt({ baseAmount, price, baseDecimals, quoteDecimals, rounding }: QuoteAmountParameters): bigint {
  const numerator = baseAmount * price.numerator * 10n ** BigInt(quoteDecimals)
  const denominator = price.denominator * 10n ** BigInt(baseDecimals)
  const floor = numerator / denominator
  return rounding === 'up' && floor * denominator !== numerator ? floor + 1n : floor
}

/** A price as a decimal string with at most `digits` fractional digits (truncated), for logs and state. */
export function formatPrice(price: LadderPrice, digits = 6): string {
  const scale = 10n ** BigInt(digits)
  const scaled = (price.numerator * scale) / price.denominator
  const whole = scaled / scale
  const fraction = (scaled % scale).toString().padStart(digits, '0').replace(/0+$/, '')
  return fraction ? `${whole}.${fraction}` : `${whole}`
}
