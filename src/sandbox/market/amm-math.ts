// The constant-product pool's arithmetic, identical to ConstantProductPool.sol so that quotes equal execution.

const bps = 10_000n

/** Output for `amountIn` (rounded down); 0 when the pool cannot quote. */
export function getAmountOut(amountIn: bigint, reserveIn: bigint, reserveOut: bigint, feeBps: bigint): bigint {
  if (amountIn <= 0n || reserveIn <= 0n || reserveOut <= 0n) return 0n
  const amountInAfterFee = amountIn * (bps - feeBps)
  return (amountInAfterFee * reserveOut) / (reserveIn * bps + amountInAfterFee)
}

/** Smallest input that yields `amountOut` (rounded up); undefined when the pool is too shallow. */
export function getAmountIn(amountOut: bigint, reserveIn: bigint, reserveOut: bigint, feeBps: bigint): bigint | undefined {
  if (amountOut <= 0n || reserveIn <= 0n || amountOut >= reserveOut) return undefined
  const numerator = reserveIn * amountOut * bps
  const denominator = (reserveOut - amountOut) * (bps - feeBps)
  return (numerator + denominator - 1n) / denominator
}
