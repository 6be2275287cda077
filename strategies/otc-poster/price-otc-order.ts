export type PriceOtcOrderParameters = {
  /** Raw takerAsset units the quote gives for the whole makerAmount. */
  quotedTakerAmount: bigint
  /** Raw makerAsset units of the whole trade (the quote's size). */
  makerAmount: bigint
  /** Raw makerAsset units still to sell (makerAmount less what earlier orders sold). */
  remainingMakerAmount: bigint
  /** Basis points over the quote (negative: under it). */
  premiumBps: number
  /** Floor of the asked takerAmount for the whole makerAmount. */
  minTakerAmount?: bigint | undefined
}

/**
 * The takerAmount to ask for `remainingMakerAmount`: the quote plus the premium, raised to the floor, scaled to what is
 * left to sell. Every step rounds up, so the maker never asks for less than the rate it was given. Undefined when the
 * quote is worthless (0) and there is no floor: nothing sensible can be asked.
 */
export function priceOtcOrder({
  quotedTakerAmount,
  makerAmount,
  remainingMakerAmount,
  premiumBps,
  minTakerAmount,
}: PriceOtcOrderParameters): bigint | undefined {
  if (makerAmount <= 0n || remainingMakerAmount <= 0n || remainingMakerAmount > makerAmount) return undefined
  const withPremium = ceilDiv(quotedTakerAmount * BigInt(10_000 + premiumBps), 10_000n)
  const whole = minTakerAmount !== undefined && minTakerAmount > withPremium ? minTakerAmount : withPremium
  const asked = ceilDiv(whole * remainingMakerAmount, makerAmount)
  return asked > 0n ? asked : undefined
}

function ceilDiv(numerator: bigint, denominator: bigint): bigint {
  return (numerator + denominator - 1n) / denominator
}
