/**
 * Largest amount in [minimum, maximum] that `fits`, by bisection down to `tolerance`, assuming that whatever fits,
 * every smaller amount fits too (a pool's average price only worsens with size). Undefined when even `minimum` does
 * not fit.
 */
export function findLargestFill(
  minimum: bigint,
  maximum: bigint,
  tolerance: bigint,
  fits: (amount: bigint) => boolean,
): bigint | undefined {
  if (maximum <= 0n) return undefined
  if (fits(maximum)) return maximum
  const low0 = minimum < maximum ? minimum : maximum
  if (low0 <= 0n || !fits(low0)) return undefined
  let low = low0
  let high = maximum
  const step = tolerance > 0n ? tolerance : 1n
  while (high - low > step) {
    const middle = (low + high) / 2n
    if (fits(middle)) low = middle
    else high = middle
  }
  return low
}
