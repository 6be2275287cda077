import { z } from 'zod'
import type { ChainVenue } from '../../venue/chain-venue.js'
import { formatAmountUsd } from '../../venue/usd.js'
import type { DeltaToken } from './delta-tokens.js'

// PriceV2 and its Route as the API writes them (section 2.1; field order as the real service's example).

export type TokenJson = { chainId: number; address: string }
export type TokenAmountJson = { token: TokenJson; amount: string; amountUSD: string }
export type RouteStepJson = { input: TokenAmountJson; output: TokenAmountJson }
export type BridgeTag = 'recommended' | 'fastest' | 'best-return'
export type RouteBridgeJson = {
  protocol: string
  estimatedTimeMs: number
  tags: BridgeTag[]
  contractParams: { protocolSelector: string; outputToken: string; scalingFactor: number; protocolData: string }
}
export type RouteJson = {
  origin: RouteStepJson
  destination: RouteStepJson
  bridge: RouteBridgeJson | null
  fees: { gas: TokenAmountJson; bridge: TokenAmountJson[] }
}
export type PriceV2Json = {
  id: string
  side: 'SELL' | 'BUY'
  inputToken: TokenJson
  outputToken: TokenJson
  route: RouteJson
  partner: { name: string; feePercent: number }
  spender: string
  alternatives: RouteJson[]
}

export function tokenAmountJson(chain: ChainVenue, token: DeltaToken, amount: bigint): TokenAmountJson {
  return {
    token: { chainId: chain.chainId, address: token.wireAddress },
    amount: amount.toString(),
    amountUSD: formatAmountUsd(chain, token.pooled.address, amount),
  }
}

const tokenSchema = z.object({ chainId: z.number().int(), address: z.string() })
const tokenAmountSchema = z.object({ token: tokenSchema, amount: z.string().regex(/^\d+$/), amountUSD: z.string() })
const stepSchema = z.object({ input: tokenAmountSchema, output: tokenAmountSchema })

/** A route handed back to the build endpoint (after its integrity tag matched, so the shape is ours). */
export const routeSchema = z.object({
  origin: stepSchema,
  destination: stepSchema,
  bridge: z
    .object({
      protocol: z.string(),
      estimatedTimeMs: z.number(),
      tags: z.array(z.string()),
      contractParams: z.object({
        protocolSelector: z.string().regex(/^0x[0-9a-fA-F]{8}$/),
        outputToken: z.string().regex(/^0x[0-9a-fA-F]{40}$/),
        scalingFactor: z.number().int(),
        protocolData: z.string().regex(/^0x([0-9a-fA-F]{2})*$/),
      }),
    })
    .nullable(),
  fees: z.object({ gas: tokenAmountSchema, bridge: z.array(tokenAmountSchema) }),
})

export type ParsedRoute = z.infer<typeof routeSchema>
