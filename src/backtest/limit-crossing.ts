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
