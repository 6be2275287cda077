import { maxPartnerFeeBps } from '../../../protocol/partner-and-fee.js'

/** Fees registered per partner name (the sandbox knows only `anon`, 1 bps, as production documents it). */
const registeredPartnerFeesBps: Readonly<Record<string, number>> = { anon: 1 }

export const defaultPartner = 'anon'

export type ResolvedPartnerFee = { name: string; feeBps: number; feePercent: number }

/**
 * The fee a quote carries: the partner's registered fee plus `partnerFeeBps`, which stack (section 7 "Behaviours"),
 * capped at the protocol maximum of 200 bps.
 */
export function resolvePartnerFee(partner: string | undefined, partnerFeeBps: number | undefined): ResolvedPartnerFee {
  const name = partner ?? defaultPartner
  const feeBps = Math.min(maxPartnerFeeBps, (registeredPartnerFeesBps[name] ?? 0) + (partnerFeeBps ?? 0))
  return { name, feeBps, feePercent: feeBps / 100 }
}
