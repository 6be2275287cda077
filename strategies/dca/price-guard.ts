import type { DcaGuard } from './dca-config.js'

export type PriceGuardVerdict = { allowed: true } | { allowed: false; reason: string }

type PriceGuardPrices = Pick<DcaGuard, 'maxPrice' | 'minPrice'>
type PriceLimit = NonNullable<DcaGuard['maxPrice']>
type GuardedQuote = { srcAmount: bigint; destAmount: bigint }

/** The limit the quote is beyond, if any. */
function breachOf({ maxPrice, minPrice }: PriceGuardPrices, quote: GuardedQuote): { name: string; limit: PriceLimit } | undefined {
  if (maxPrice && quote.srcAmount * maxPrice.destAmount > maxPrice.srcAmount * quote.destAmount)
    return { name: 'above maxPrice', limit: maxPrice }
  if (minPrice && quote.srcAmount * minPrice.destAmount < minPrice.srcAmount * quote.destAmount)
    return { name: 'below minPrice', limit: minPrice }
  return undefined
}

/** checkPriceGuard's `allowed` alone: no reason is written for a quote the guard blocks. */
export function isWithinPriceGuard(guard: PriceGuardPrices, quote: GuardedQuote): boolean {
  return breachOf(guard, quote) === undefined
}

/**
 * Whether a quote (`srcAmount` of srcToken gives `destAmount` of destToken) is within the guard's prices, compared
 * as ratios of raw amounts in bigint: above maxPrice when srcAmount × max.destAmount > max.srcAmount × destAmount,
 * below minPrice when srcAmount × min.destAmount < min.srcAmount × destAmount. A quote giving nothing is above any
 * maxPrice.
 */
export function checkPriceGuard(guard: PriceGuardPrices, quote: GuardedQuote): PriceGuardVerdict {
  const breach = breachOf(guard, quote)
  if (breach === undefined) return { allowed: true }
  const { name, limit } = breach
  return {
    allowed: false,
    reason: `price ${name}: the quote gives ${quote.srcAmount} for ${quote.destAmount}, the limit ${limit.srcAmount} for ${limit.destAmount}`,
  }
}
