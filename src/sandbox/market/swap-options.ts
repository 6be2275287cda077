import { type Address, getAddress, type Hex } from 'viem'
import { zeroAddress } from '../../protocol/addresses.js'
import { ApiError } from '../server/api-error.js'
import { marketErrors } from './market-errors.js'
import type { PriceRouteJson } from './price-route.js'
import type { PartnerOptions } from './transactions-request.js'

/** What the partner options of a build make the router charge. */
export type PartnerCharge = {
  /** Receives the fee or the collected surplus. */
  partner: Address | undefined
  /** Basis points of the variable side (SELL: output; BUY: source spent); 0 for none. */
  feeBps: number
  /** Positive slippage goes to the partner: takeSurplus without a fee, and not isSurplusToUser. */
  collectsSurplus: boolean
  capSurplus: boolean
  directFeeTransfer: boolean
}

/** SwapOptions.flags of the router (RouterPayments.sol). */
const flags = { takeSurplus: 1n, capSurplus: 2n, directFeeTransfer: 4n, exactOut: 8n } as const

/** The router's SwapOptions tuple. */
export type RouterSwapOptions = {
  partner: Address
  partnerFeeBps: bigint
  /** The route's quote of the variable side as the router sees it (SELL: pools' output; BUY: pools' input). */
  quotedAmount: bigint
  flags: bigint
  /** Empty, or the Permit2 payload of the build. */
  permit: Hex
}

/**
 * The charge of the build's partner options. The anonymous partner may set none of them (422 Partner not allowed, as
 * before); a fee or a collected surplus needs `partnerAddress`, the sandbox having no registered partner addresses. A
 * fee excludes the surplus (the service's rule: a partner takes either a fee or a share of the surplus); surplus sent
 * to the user is not collected at all.
 */
export function planPartnerCharge(route: PriceRouteJson, options: PartnerOptions): PartnerCharge {
  checkAnonymousPartner(route, options)
  const feeBps = options.partnerFeeBps ?? 0
  const collectsSurplus = feeBps === 0 && options.takeSurplus && !options.isSurplusToUser
  if ((feeBps > 0 || collectsSurplus) && options.partnerAddress === undefined) {
    const asked = feeBps > 0 ? `partnerFeeBps ${feeBps}` : 'takeSurplus'
    throw new ApiError(marketErrors.partnerNotAllowed, {
      message: `Partner not allowed: ${asked} needs partnerAddress, the address the router pays it to (the sandbox has no registered partner addresses)${feeBps > 0 ? '' : '; or send isSurplusToUser=true to leave the surplus with the user'}`,
    })
  }
  return {
    partner: options.partnerAddress === undefined ? undefined : getAddress(options.partnerAddress),
    feeBps,
    collectsSurplus,
    capSurplus: options.isCapSurplus,
    directFeeTransfer: options.isDirectFeeTransfer,
  }
}

/** The router's options of a build, or undefined when its plain call does (nothing charged, no Permit2 payload). */
export function routerSwapOptions(
  charge: PartnerCharge,
  { quotedAmount, exactOut, permit2 }: { quotedAmount: bigint; exactOut: boolean; permit2: Hex | undefined },
): RouterSwapOptions | undefined {
  if (charge.feeBps === 0 && !charge.collectsSurplus && permit2 === undefined) return undefined
  return {
    partner: charge.partner ?? zeroAddress,
    partnerFeeBps: BigInt(charge.feeBps),
    quotedAmount,
    flags:
      (charge.collectsSurplus ? flags.takeSurplus : 0n) |
      (charge.capSurplus ? flags.capSurplus : 0n) |
      (charge.directFeeTransfer ? flags.directFeeTransfer : 0n) |
      (exactOut ? flags.exactOut : 0n),
    permit: permit2 ?? '0x',
  }
}

/** The options as the `onlyParams` answer lists them (amounts as decimal strings). */
export function describeSwapOptions(options: RouterSwapOptions): Record<string, string> {
  return {
    partner: options.partner,
    partnerFeeBps: options.partnerFeeBps.toString(),
    quotedAmount: options.quotedAmount.toString(),
    flags: options.flags.toString(),
    permit: options.permit,
  }
}

/** Fee and surplus options need a named partner: the anonymous one may not set them. */
function checkAnonymousPartner(route: PriceRouteJson, options: PartnerOptions): void {
  const partner = options.partner ?? route.partner
  if (partner !== 'anon') return
  const requested = [
    options.partnerAddress !== undefined && 'partnerAddress',
    (options.partnerFeeBps ?? 0) > 0 && 'partnerFeeBps',
    options.takeSurplus && 'takeSurplus',
    options.isSurplusToUser && 'isSurplusToUser',
    options.isDirectFeeTransfer && 'isDirectFeeTransfer',
    !options.isCapSurplus && 'isCapSurplus=false',
  ].filter((option): option is string => typeof option === 'string')
  if (requested.length === 0) return
  throw new ApiError(marketErrors.partnerNotAllowed, {
    message: `Partner not allowed: the anonymous partner "anon" cannot use ${requested.join(', ')}; send your partner name`,
  })
}
