import type { DeltaPrice } from '../../api/delta/delta-price-schema.js'
import type { MarketPriceRoute } from '../../api/market/price-route-schema.js'

// What each mode really costs or gives, in raw units of the variable side: the destination for SELL (more is
// better), the source for BUY (less is better). Partner fees are in percent (0.05 = 0.05 %).

/** The fields of a Delta price (section 2.1) the comparison reads; a DeltaPrice fits. */
export type DeltaQuoteFields = {
  route: { origin: { input: { amount: bigint } }; destination: { output: { amount: bigint } } }
  partner: Pick<DeltaPrice['partner'], 'feePercent'>
}

/** The fields of a Market priceRoute (section 2.4) the comparison reads; a MarketPriceRoute fits. */
export type MarketRouteFields = Pick<
  MarketPriceRoute,
  'srcAmount' | 'destAmount' | 'gasCost' | 'gasCostUSD' | 'srcUSD' | 'destUSD' | 'partnerFee'
> & {
  destAmountAfterFee?: bigint | undefined
  maxImpactReached?: boolean | undefined
}

export type NetAmount = {
  /** The route's amount of the variable side. */
  gross: bigint
  /** Partner fee, raw units of the variable side. */
  fee: bigint
  /** Gas the user pays on top, converted to raw units of the variable side (0 for Delta: agents' gas is in the route). */
  gas: bigint
  /** SELL: gross − fee − gas (at least 0). BUY: gross + fee + gas. */
  net: bigint
  /** True when the gas could not be converted (no USD price of the token) and so was not counted. */
  gasUnpriced: boolean
}

export type Side = 'SELL' | 'BUY'

/** A Delta quote's amounts are already net of the agents' gas; only the partner fee is taken off (or added, for BUY). */
export function netDeltaAmount(price: DeltaQuoteFields, side: Side): NetAmount {
  const gross = side === 'SELL' ? price.route.destination.output.amount : price.route.origin.input.amount
  const fee = percentOf(gross, price.partner.feePercent)
  return { gross, fee, gas: 0n, net: applyCost(side, gross, fee), gasUnpriced: false }
}

export type GasPricing = {
  /** The executor's own gas price; with nativeUsd it replaces the route's gasCostUSD. */
  gasPriceWei?: bigint | undefined
  /** USD per whole native token (ETH), e.g. 3150.25. */
  nativeUsd?: number | undefined
}

/** A Market route net of the partner fee and of the gas the user pays, converted through the route's USD values. */
export function netMarketAmount(route: MarketRouteFields, side: Side, pricing: GasPricing = {}): NetAmount {
  const gross = side === 'SELL' ? route.destAmount : route.srcAmount
  const fee =
    side === 'SELL' && route.destAmountAfterFee !== undefined
      ? maxBigint(route.destAmount - route.destAmountAfterFee, 0n)
      : percentOf(gross, route.partnerFee)
  const gasUsd = gasCostUsd(route, pricing)
  const grossUsd = parseUsd(side === 'SELL' ? route.destUSD : route.srcUSD)
  if (gasUsd === undefined || grossUsd === undefined || grossUsd === 0n) {
    return { gross, fee, gas: 0n, net: applyCost(side, gross, fee), gasUnpriced: true }
  }
  // USD per raw unit = grossUsd / gross, so gas in raw units = gasUsd * gross / grossUsd (rounded up: a cost).
  const gas = ceilDiv(gasUsd * gross, grossUsd)
  return { gross, fee, gas, net: applyCost(side, gross, fee + gas), gasUnpriced: false }
}

function applyCost(side: Side, gross: bigint, cost: bigint): bigint {
  return side === 'SELL' ? maxBigint(gross - cost, 0n) : gross + cost
}

const usdScale = 10n ** 18n

/** USD scaled by 1e18. */
function gasCostUsd(route: MarketRouteFields, { gasPriceWei, nativeUsd }: GasPricing): bigint | undefined {
  if (gasPriceWei !== undefined && nativeUsd !== undefined) {
    const native = parseUsd(nativeUsd.toFixed(12))
    return native === undefined ? undefined : (route.gasCost * gasPriceWei * native) / usdScale
  }
  return parseUsd(route.gasCostUSD)
}

/** A decimal USD string (display value of the service) as USD scaled by 1e18; undefined when not a plain decimal. */
function parseUsd(text: string): bigint | undefined {
  const match = /^(\d+)(?:\.(\d+))?$/.exec(text.trim())
  if (!match) return undefined
  const [, whole = '0', fraction = ''] = match
  return BigInt(whole) * usdScale + BigInt(fraction.slice(0, 18).padEnd(18, '0'))
}

/** `percent` % of `amount`, rounded up (fees are costs); percent has at most 6 decimals of precision. */
function percentOf(amount: bigint, percent: number): bigint {
  if (!(percent > 0)) return 0n
  return ceilDiv(amount * BigInt(Math.round(percent * 1e6)), 100_000_000n)
}

function ceilDiv(numerator: bigint, denominator: bigint): bigint {
  return (numerator + denominator - 1n) / denominator
}

function maxBigint(left: bigint, right: bigint): bigint {
  return left > right ? left : right
}
