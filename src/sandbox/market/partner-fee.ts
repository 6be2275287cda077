// The Market partner fee as the sandbox quotes and charges it.

const bps = 10_000n

/**
 * The anonymous partner's fee of section 8 (1 bps), which the sandbox reports in `partnerFee` for every partner as
 * their registered fee and does not charge: the router charges only the `partnerFeeBps` a build sends.
 */
export const registeredFeeBps = 1

/** `partnerFee` of a route, in percent: the registered fee plus the `partnerFeeBps` of the quote (they stack, section 7). */
export function partnerFeePercent(partnerFeeBps: number): number {
  return (registeredFeeBps + partnerFeeBps) / 100
}

/** The fee the router takes from `amount` at `feeBps`, rounded down as the router rounds it. */
export function partnerFeeOn(amount: bigint, feeBps: number): bigint {
  return (amount * BigInt(feeBps)) / bps
}
