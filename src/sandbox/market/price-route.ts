import type { Address } from 'viem'
import { z } from 'zod'
import { marketRouterAddress } from '../../protocol/addresses.js'

/** Router addresses a route names, by `version`. Version 5 names production's legacy contracts, which the sandbox does not deploy. */
export const routerByVersion = {
  '6.2': { contractAddress: marketRouterAddress, tokenTransferProxy: marketRouterAddress },
  '5': {
    contractAddress: '0xDEF171Fe48CF0115B1d80b88dc8eAB59176FEe57' as Address,
    tokenTransferProxy: '0x216b4b4ba9f3e719726886d34a177484278bfcae' as Address,
  },
} as const

export type RouteVersion = keyof typeof routerByVersion

/** The contract method of a v6.2 route filled from a market maker's firm quote (production's name for RFQ fills). */
export const rfqContractMethod = 'swapOnAugustusRFQTryBatchFill'

/**
 * `data` of a swap exchange: a pool hop's `{ tokenIn, tokenOut, feeBps, gasUSD }`, or a maker fill's
 * `{ maker, pair, gasUSD }` (which registered maker and which of its pairs; the build asks that maker for a firm quote).
 */
const swapDataSchema = z.object({
  tokenIn: z.string().optional(),
  tokenOut: z.string().optional(),
  feeBps: z.number().optional(),
  maker: z.string().optional(),
  pair: z.string().optional(),
  gasUSD: z.string(),
})

const swapExchangeSchema = z.object({
  exchange: z.string(),
  srcAmount: z.string(),
  destAmount: z.string(),
  percent: z.number(),
  poolAddresses: z.array(z.string()),
  poolIdentifiers: z.array(z.string()),
  data: swapDataSchema,
})

const swapSchema = z.object({
  srcToken: z.string(),
  srcDecimals: z.number(),
  destToken: z.string(),
  destDecimals: z.number(),
  swapExchanges: z.array(swapExchangeSchema),
})

const otherExchangePriceSchema = z.object({
  exchange: z.string(),
  srcAmount: z.string(),
  destAmount: z.string(),
  unit: z.string(),
  data: z.object({ gasUSD: z.string() }),
})

/**
 * The sandbox's Market priceRoute (section 2.4), keys in production's v6.2 order. `bestRoute` holds one route at
 * 100 % whose `swaps` are the hops; each hop is one pool, or the whole route is one maker fill (AugustusRFQ).
 */
export const priceRouteSchema = z.object({
  blockNumber: z.number(),
  network: z.number(),
  srcToken: z.string(),
  srcDecimals: z.number(),
  srcAmount: z.string(),
  destToken: z.string(),
  destDecimals: z.number(),
  destAmount: z.string(),
  bestRoute: z.array(z.object({ percent: z.number(), swaps: z.array(swapSchema) })),
  gasCostUSD: z.string(),
  gasCost: z.string(),
  side: z.enum(['SELL', 'BUY']),
  version: z.enum(['5', '6.2']),
  contractAddress: z.string(),
  tokenTransferProxy: z.string(),
  contractMethod: z.string(),
  partnerFee: z.number(),
  srcUSD: z.string(),
  destUSD: z.string(),
  /** SELL: destAmount less the partner fee the router charges (partnerFeeBps of the quote); BUY: destAmount. */
  destAmountAfterFee: z.string(),
  partner: z.string(),
  maxImpactReached: z.boolean(),
  others: z.array(otherExchangePriceSchema).optional(),
  hmac: z.string(),
})

export type PriceRouteJson = z.infer<typeof priceRouteSchema>
export type PriceRouteSwap = z.infer<typeof swapSchema>
export type OtherExchangePrice = z.infer<typeof otherExchangePriceSchema>

/** Contract method of a route: the v6.2 router's generic swaps, or production's v5 method names. */
export function contractMethodOf(version: RouteVersion, side: 'SELL' | 'BUY', pools: number): string {
  if (version === '6.2') return side === 'SELL' ? 'swapExactAmountIn' : 'swapExactAmountOut'
  if (side === 'BUY') return 'simpleBuy'
  return pools === 1 ? 'simpleSwap' : 'multiSwap'
}
