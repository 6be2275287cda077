import { formatUnits } from 'viem'
import { greatestCommonDivisor, parseDecimal } from '../../protocol/price-grid.js'
import type { ExactPrice } from '../maker-strategy.js'

// Exact prices (bigint ratios) for makers: quote units per one whole base token. Grids are computed exactly and
// rounded once, when written as decimal strings.

/** numerator / denominator, reduced; the denominator must be positive and the numerator not negative. */
export function exactPrice(numerator: bigint, denominator: bigint): ExactPrice {
  if (denominator <= 0n || numerator < 0n) throw new RangeError(`a price is a non-negative ratio, received ${numerator}/${denominator}`)
  const divisor = greatestCommonDivisor(numerator, denominator)
  return divisor <= 1n ? { numerator, denominator } : { numerator: numerator / divisor, denominator: denominator / divisor }
}

/** A decimal string such as "1850.25". */
export function priceFromDecimal(text: string): ExactPrice {
  const { n, d } = parseDecimal(text, 'price')
  return exactPrice(n, d)
}

/** The price of a trade: `quoteAmount` raw quote units for `baseAmount` raw base units. */
export function priceFromAmounts({
  baseAmount,
  quoteAmount,
  baseDecimals,
  quoteDecimals,
}: {
  baseAmount: bigint
  quoteAmount: bigint
  baseDecimals: number
  quoteDecimals: number
}): ExactPrice {
  return exactPrice(quoteAmount * 10n ** BigInt(baseDecimals), baseAmount * 10n ** BigInt(quoteDecimals))
}

export function averagePrice(a: ExactPrice, b: ExactPrice): ExactPrice {
  return exactPrice(a.numerator * b.denominator + b.numerator * a.denominator, 2n * a.denominator * b.denominator)
}

/** The price moved by `bps` basis points (negative: down). */
export function shiftPrice(price: ExactPrice, bps: bigint): ExactPrice {
  const factor = 10_000n + bps
  if (factor < 0n) throw new RangeError(`cannot move a price by ${bps} bps`)
  return exactPrice(price.numerator * factor, price.denominator * 10_000n)
}

/** −1, 0 or 1. */
export function comparePrices(a: ExactPrice, b: ExactPrice): number {
  const left = a.numerator * b.denominator
  const right = b.numerator * a.denominator
  return left < right ? -1 : left > right ? 1 : 0
}

/** The price × 10^decimals as an integer, rounded down or up. */
export function roundPrice(price: ExactPrice, decimals: number, rounding: 'down' | 'up'): bigint {
  const scaled = price.numerator * 10n ** BigInt(decimals)
  const floor = scaled / price.denominator
  return rounding === 'up' && floor * price.denominator !== scaled ? floor + 1n : floor
}

/** An integer of `decimals` implied decimals as a decimal string without trailing zeros ("1850.25", "3"). */
export function formatScaled(value: bigint, decimals: number): string {
  if (value < 0n) throw new RangeError(`expected a non-negative value, received ${value}`)
  return formatUnits(value, decimals)
}

/** A decimal string of whole units as raw units of a token of `decimals` (rounded down). */
export function decimalToRaw(text: string, decimals: number): bigint {
  const { n, d } = parseDecimal(text)
  return (n * 10n ** BigInt(decimals)) / d
}

/** An approximate number, for logs and informational fields only. */
export function priceToNumber(price: ExactPrice): number {
  return Number(formatScaled(roundPrice(price, 12, 'down'), 12))
}
