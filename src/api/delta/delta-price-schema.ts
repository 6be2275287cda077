import type { Hex } from 'viem'
import { z } from 'zod'
import {
  hexSchema,
  integerSchema,
  wireAddressSchema,
  wireAmountSchema,
  wireChainIdSchema,
  wireSideSchema,
} from '../../domain/wire-fields.js'
import { withRaw } from '../json.js'

// PriceV2 of GET /v2/delta/prices and the `delta` block of GET /v2/quote (section 2.1).

export const deltaTokenSchema = z.object({ chainId: wireChainIdSchema, address: wireAddressSchema })

export const tokenAmountSchema = z.object({
  token: deltaTokenSchema,
  amount: wireAmountSchema,
  /** A display value (decimal string of USD); never used for amounts. */
  amountUSD: z.string(),
})

const routeStepSchema = z.object({ input: tokenAmountSchema, output: tokenAmountSchema })

const protocolSelectorSchema = hexSchema.refine((value: Hex) => value.length === 10, {
  error: 'expected a 4-byte selector (0x + 8 hex digits)',
})

const routeBridgeSchema = z.object({
  protocol: z.string(),
  estimatedTimeMs: integerSchema,
  tags: z.array(z.enum(['recommended', 'fastest', 'best-return'])),
  contractParams: z.object({
    protocolSelector: protocolSelectorSchema,
    outputToken: wireAddressSchema,
    scalingFactor: z.number().int().min(-128).max(127),
    protocolData: hexSchema,
  }),
})

/** A Route with its `raw` JSON, which goes back to POST /v2/delta/orders/build unmodified. */
export const deltaRouteSchema = withRaw(
  z.object({
    origin: routeStepSchema,
    destination: routeStepSchema,
    /** Null on same-chain routes (and on a crosschain route whose bridge collapsed; see isCrosschainRoute). */
    bridge: routeBridgeSchema.nullable(),
    fees: z.object({ gas: tokenAmountSchema, bridge: z.array(tokenAmountSchema) }),
  }),
)

export type DeltaRoute = z.output<typeof deltaRouteSchema>

export const deltaPriceSchema = z.object({
  /** Request id, for support tickets. */
  id: z.string(),
  side: wireSideSchema,
  inputToken: deltaTokenSchema,
  outputToken: deltaTokenSchema,
  /** The recommended route. */
  route: deltaRouteSchema,
  /** Other routes (crosschain only; empty for same-chain). */
  alternatives: z.array(deltaRouteSchema),
  /** feePercent is the resolved partner fee in percent (0.05 = 0.05 %). */
  partner: z.object({ name: z.string(), feePercent: z.number() }),
  /** The Delta contract: the ERC-20 spender to approve for Delta. */
  spender: wireAddressSchema,
})

export type DeltaPrice = z.output<typeof deltaPriceSchema>

/** Section 2.1: crosschain is decided by the chains of the route's ends, not by `bridge` being set. */
export function isCrosschainRoute(route: Pick<DeltaRoute, 'origin' | 'destination'>): boolean {
  return route.origin.input.token.chainId !== route.destination.output.token.chainId
}
