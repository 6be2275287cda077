import type { BookPair, BookQuote } from './replay-book.js'

/**
 * Whether a recorded quote scaled to `size` meets a limit order's price by the margin:
 * `scaled dest × maxSrc × 10⁶ ≥ minDest × size × (10⁶ + marginPpm)`, the scaled dest rounded down as priceFromBook
 * rounds it (a BUY pair's dest is `size` itself).
 *
 * Resting orders are checked against most quotes of their pair and are far from their limit at most of them: the
 * comparison is first made in floating point, and settled exactly in bigints only when the two sides are within the
 * float's error (relative 10⁻⁹, plus the rounding of the scaled amount), so the answer is always the exact one.
 */
export function limitCrossed(
  order: { maxSrc: bigint; minDest: bigint },
  size: bigint,
  from: Pick<BookQuote, 'destAmount' | 'destNumber' | 'amountNumber' | 'request'>,
  side: BookPair['side'],
  marginPpm: bigint,
): boolean {
  const recorded = from.request.request.amount
  const approximateDest = side === 'SELL' ? (from.destNumber * Number(size)) / from.amountNumber : 0
  // Below a thousand units, rounding the scaled amount down moves it by more than the float's margin: exact only.
  if (approximateDest >= 1_000) {
    const received = approximateDest * Number(order.maxSrc) * 1e6
    const asked = Number(order.minDest) * Number(size) * (1e6 + Number(marginPpm))
    const tolerance = 1e-9 + 2 / approximateDest
    if (received < asked * (1 - tolerance)) return false
    if (received > asked * (1 + tolerance)) return true
  }
  const dest = side === 'SELL' ? (from.destAmount * size) / recorded : size
  return dest * order.maxSrc * 1_000_000n >= order.minDest * size * (1_000_000n + marginPpm)
}

/**
 * The dest per unit of source a SELL limit order asks for, its margin included, as a float: what a quote's own rate
 * (ownRateOf, by rateBelowLimitRate) is compared with. Made once per order.
 */
export function limitRateOf(order: { maxSrc: bigint; minDest: bigint }, marginPpm: bigint): number {
  return (Number(order.minDest) * (1e6 + Number(marginPpm))) / (Number(order.maxSrc) * 1e6)
}

/**
 * A SELL quote's own rate, as a float: dest per unit of its recorded size, what a limit rate (limitRateOf) is compared
 * with (rateBelowLimitRate). NaN for a quote of size 0, which prices nothing. Of a pair's quotes, the highest rate
 * decides for all: if it is below an order's limit rate, every other one is too.
 */
export function ownRateOf(from: Pick<BookQuote, 'destNumber' | 'amountNumber'>): number {
  return from.amountNumber === 0 ? Number.NaN : from.destNumber / from.amountNumber
}

/**
 * Whether a quote's own rate (ownRateOf) is below a limit rate (limitRateOf) by more than the floats' error: then no
 * size scaled from that quote crosses the limit (a scaled dest is the rate times the size, rounded down), and
 * limitCrossed is false for every size. The floats' error is far below the 10⁻⁹ this leaves: the answer is never true
 * when an exact check would cross. NaN (a quote of size 0) is below every limit.
 */
export function rateBelowLimitRate(limitRate: number, rate: number): boolean {
  return !(rate >= limitRate * (1 - 1e-9))
}
