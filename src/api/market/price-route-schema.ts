import { z } from 'zod'
import { integerSchema, wireAddressSchema, wireAmountSchema, wireChainIdSchema, wireSideSchema } from '../../domain/wire-fields.js'
import { withRaw } from '../json.js'

// The Market priceRoute (section 2.4): `priceRoute` of GET /prices and GET /swap, `market` of GET /v2/quote.

/** One exchange of a hop: enough of the (undocumented) bestRoute to show where the amount goes. */
const swapExchangeSchema = z.object({
  exchange: z.string(),
  srcAmount: wireAmountSchema,
  destAmount: wireAmountSchema,
  percent: z.number(),
})

const swapSchema = z.object({
  srcToken: wireAddressSchema,
  srcDecimals: integerSchema,
  destToken: wireAddressSchema,
  destDecimals: integerSchema,
  swapExchanges: z.array(swapExchangeSchema),
})

/** `others` of otherExchangePrices=true: what single exchanges would give. */
const otherExchangePriceSchema = z.object({ exchange: z.string(), srcAmount: wireAmountSchema, destAmount: wireAmountSchema })

const priceRouteV62Schema = z.object({
  blockNumber: integerSchema,
  /** Chain id; the transaction is built on this chain. */
  network: wireChainIdSchema,
  srcToken: wireAddressSchema,
  srcDecimals: integerSchema,
  srcAmount: wireAmountSchema,
  destToken: wireAddressSchema,
  destDecimals: integerSchema,
  destAmount: wireAmountSchema,
  bestRoute: z.array(z.object({ percent: z.number(), swaps: z.array(swapSchema) })),
  /** Display value, USD. */
  gasCostUSD: z.string(),
  /** Gas units. */
  gasCost: wireAmountSchema,
  side: wireSideSchema,
  version: z.literal('6.2'),
  contractAddress: wireAddressSchema,
  /** The ERC-20 spender of a Market swap (on v6.2 the router itself). */
  tokenTransferProxy: wireAddressSchema,
  contractMethod: z.string(),
  /** Percent. */
  partnerFee: z.number(),
  srcUSD: z.string(),
  destUSD: z.string(),
  /** Recorded on some answers (the unified quote): destAmount net of the partner fee. */
  destAmountAfterFee: wireAmountSchema.optional(),
  partner: z.string(),
  /** True when the price impact exceeds maxImpact. */
  maxImpactReached: z.boolean(),
  /** Integrity tag: the route must come back unmodified. */
  hmac: z.string(),
  others: z.array(otherExchangePriceSchema).optional(),
})

/** A v6.2 priceRoute with its `raw` JSON, which goes back to POST /transactions/{chainId} unmodified. */
export const marketPriceRouteSchema = z
  .unknown()
  .superRefine((value, context) => {
    const problem = legacyRouteProblem(value)
    if (problem) context.addIssue({ code: 'custom', message: problem, input: value })
  })
  .pipe(withRaw(priceRouteV62Schema))

export type MarketPriceRoute = z.output<typeof marketPriceRouteSchema>

function legacyRouteProblem(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined
  if ('src' in value && !('srcToken' in value)) {
    return 'a 2021-era priceRoute (src / dest instead of srcToken / destToken, no version); this client reads version 6.2 routes'
  }
  if (!('version' in value)) {
    return 'a priceRoute without `version`: a legacy v5 route for the v5 router, which this client does not build for; request version=6.2'
  }
  if (value.version !== '6.2') return `a priceRoute of version ${JSON.stringify(value.version)}; this client builds only version 6.2 routes`
  return undefined
}
