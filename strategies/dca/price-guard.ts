import type { DcaGuard } from './dca-config.js'

export type PriceGuardVerdict = { allowed: true } | { allowed: false; reason: string }

/**
 * Whether a quote (`srcAmount` of srcToken gives `destAmount` of destToken) is within the guard's prices, compared
 * as ratios of raw amounts in bigint: above maxPrice when srcAmount × max.destAmount > max.srcAmount × destAmount,
 * below minPrice when srcAmount × min.destAmount < min.srcAmount × destAmount. A quote giving nothing is above any
 * maxPrice.
 */
export function checkPriceGuard(
  guard: Pick<DcaGuard, 'maxPrice' | 'minPrice'>,
  quote: { srcAmount: bigint; destAmount: bigint },
): PriceGuardVerdict {
  const { maxPrice, minPrice } = guard
  const quoted = `${quote.srcAmount} for ${quote.destAmount}`
  if (maxPrice && quote.srcAmount * maxPrice.destAmount > maxPrice.srcAmount * quote.destAmount) {
    return {
      allowed: false,
      reason: `price above maxPrice: the quote gives ${quoted}, the limit ${maxPrice.srcAmount} for ${maxPrice.destAmount}`,
    }
  }
  if (minPrice && quote.srcAmount * minPrice.destAmount < minPrice.srcAmount * quote.destAmount) {
    return {
      allowed: false,
      reason: `price below minPrice: the quote gives ${quoted}, the limit ${minPrice.srcAmount} for ${minPrice.destAmount}`,
    }
  }
  return { allowed: true }
}
