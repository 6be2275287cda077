import { randomUUID } from 'node:crypto'
import { z } from 'zod'
import { ApiError } from '../../server/api-error.js'
import { parseRequestPart } from '../../server/validate.js'
import type { ChainVenue } from '../../venue/chain-venue.js'
import { bridgeProfiles } from '../bridges.js'
import { selectAgents } from './agent-quotes.js'
import { type CrosschainRoutesParameters, quoteCrosschainRoutes, type RouteCandidate } from './crosschain-routes.js'
import type { DeltaApiContext } from './delta-api-context.js'
import { requireDeltaChain } from './delta-chains.js'
import { deltaError, deltaErrors } from './delta-errors.js'
import { type DeltaToken, resolveDeltaToken } from './delta-tokens.js'
import { settlementGasFee } from './gas-fee.js'
import { resolvePartnerFee } from './partner-fee.js'
import { lessBps, plusBps, quoteLeg } from './quote-leg.js'
import type { PriceV2Json } from './route-json.js'
import { tokenAmountJson } from './route-json.js'
import { routeRegistryOf } from './route-registry.js'
import {
  addressSchema,
  amountStringSchema,
  commaListSchema,
  queryBooleanSchema,
  queryIntegerSchema,
  queryNumberSchema,
  sideSchema,
} from './wire.js'

/** Query of GET /v2/delta/prices (section 4.1); unknown parameters are ignored, as /v2/quote adds its own. */
export const deltaPriceQuerySchema = z.object({
  chainId: queryIntegerSchema,
  srcToken: addressSchema,
  destToken: addressSchema,
  amount: amountStringSchema.refine((amount) => amount > 0n, 'expected an amount above 0'),
  srcDecimals: queryIntegerSchema,
  destDecimals: queryIntegerSchema,
  side: sideSchema.default('SELL'),
  destChainId: queryIntegerSchema.optional(),
  userAddress: addressSchema.optional(),
  beneficiary: addressSchema.optional(),
  partner: z.string().min(1).optional(),
  partnerFeeBps: queryIntegerSchema.pipe(z.number().min(0).max(200)).optional(),
  maxImpact: queryNumberSchema.pipe(z.number().nonnegative()).default(15),
  maxUSDImpact: queryNumberSchema.pipe(z.number().nonnegative()).optional(),
  includeAgents: commaListSchema.optional(),
  excludeAgents: commaListSchema.optional(),
  includeBridges: commaListSchema.optional(),
  excludeBridges: commaListSchema.optional(),
  allowBridgeAndSwap: queryBooleanSchema.default(true),
})

export type DeltaPriceQuery = z.input<typeof deltaPriceQuerySchema>

/**
 * What GET /v2/delta/prices answers: the best agent's price for a same-chain or crosschain swap (with the other
 * bridges' routes as alternatives). Every returned route is remembered for POST /v2/delta/orders/build.
 */
export async function priceDelta({ venue }: DeltaApiContext, query: unknown): Promise<PriceV2Json> {
  const request = parseRequestPart(deltaPriceQuerySchema, query, 'query')
  const { chain, delta } = requireDeltaChain(venue, request.chainId)
  const destChain =
    request.destChainId === undefined || request.destChainId === request.chainId ? chain : venue.chains.get(request.destChainId)
  if (!destChain) {
    throw deltaError(deltaErrors.unsupportedChain, `destination chain ${request.destChainId} is not running in this sandbox`)
  }
  const src = requireToken(chain, request.srcToken, 'srcToken')
  const dest = requireToken(destChain, request.destToken, 'destToken')
  if (src.decimals !== request.srcDecimals) throw noRoute(`srcDecimals ${request.srcDecimals} differ from the token's ${src.decimals}`)
  if (dest.decimals !== request.destDecimals) throw noRoute(`destDecimals ${request.destDecimals} differ from the token's ${dest.decimals}`)
  const fee = resolvePartnerFee(request.partner, request.partnerFeeBps)
  const agents = selectAgents(request.includeAgents, request.excludeAgents)
  if (agents.length === 0) throw noRoute('no agent is left after includeAgents / excludeAgents')

  const crosschain = destChain !== chain
  const gas = await settlementGasFee(chain, crosschain)
  const common = { src, dest, amount: request.amount, side: request.side, feeBps: fee.feeBps, agents, gas, random: venue.random }
  const routes = crosschain
    ? quoteCrosschainRoutes({
        ...common,
        srcChain: chain,
        destChain,
        bridges: bridgeProfiles.filter(
          (bridge) =>
            (request.includeBridges === undefined || request.includeBridges.includes(bridge.protocol)) &&
            !(request.excludeBridges ?? []).includes(bridge.protocol),
        ),
        allowBridgeAndSwap: request.allowBridgeAndSwap,
      })
    : sameChainRoutes({ ...common, chain })
  const [best, ...others] = routes
  if (!best)
    throw noRoute(
      crosschain
        ? `no active bridge lane from chain ${chain.chainId} to ${destChain.chainId} for these tokens`
        : 'no liquidity for this pair and amount',
    )
  checkGasCost(best, request.side)
  checkImpact(best, request.maxImpact, request.maxUSDImpact)

  const price: PriceV2Json = {
    id: randomUUID(),
    side: request.side,
    // The tokens in lowercase, the native placeholder too (as the real answers write them); the route keeps the
    // caller's spelling of the native asset, which the build checks (`Invalid srcToken`).
    inputToken: { chainId: chain.chainId, address: src.wireAddress.toLowerCase() },
    outputToken: { chainId: destChain.chainId, address: dest.wireAddress.toLowerCase() },
    route: best.json,
    partner: { name: fee.name, feePercent: fee.feePercent },
    spender: delta.toLowerCase(),
    alternatives: others.map((route) => route.json),
  }
  const registry = routeRegistryOf(venue)
  for (const route of routes) registry.remember(route.json, { side: request.side, quotedAt: venue.clock.now() })
  return price
}

type SameChainParameters = Omit<CrosschainRoutesParameters, 'srcChain' | 'destChain' | 'bridges' | 'allowBridgeAndSwap'> & {
  chain: ChainVenue
}

/** The route of a same-chain swap: the partner fee comes off the output of a sell and on top of the input of a buy. */
function sameChainRoutes({ chain, src, dest, amount, side, feeBps, agents, gas, random }: SameChainParameters): RouteCandidate[] {
  if (src.pooled.address === dest.pooled.address) return []
  const leg = quoteLeg({ chain, from: src, to: dest, amount, side, agents, random })
  if (!leg) return []
  const input = side === 'SELL' ? leg.input : plusBps(leg.input, feeBps)
  const output = side === 'SELL' ? lessBps(leg.output, feeBps) : leg.output
  if (output === 0n) return []
  const outputJson = tokenAmountJson(chain, dest, output)
  return [
    {
      json: {
        origin: { input: tokenAmountJson(chain, src, input), output: outputJson },
        destination: { input: outputJson, output: outputJson },
        bridge: null,
        fees: { gas, bridge: [] },
      },
      impactPercent: leg.impactPercent,
      lossUsd: leg.lossUsd,
    },
  ]
}

/**
 * The real service refuses a Delta price whose settlement gas is worth at least the trade (`GasCostExceedsTradeAmount`,
 * as recorded by the official SDK's tests). The trade's worth is its fixed side: the input of a SELL, the output of a
 * BUY. A token without a USD price is not judged.
 */
function checkGasCost(route: RouteCandidate, side: 'SELL' | 'BUY'): void {
  const fixed = side === 'SELL' ? route.json.origin.input : route.json.destination.output
  const tradeUsd = Number(fixed.amountUSD)
  const gasUsd = Number(route.json.fees.gas.amountUSD)
  if (!(tradeUsd > 0) || gasUsd < tradeUsd) return
  throw new ApiError(deltaErrors.gasCostExceedsTradeAmount, {
    message:
      `${deltaErrors.gasCostExceedsTradeAmount.message}: settling costs ${route.json.fees.gas.amount} wei of gas (${gasUsd} USD), ` +
      `the trade is worth ${tradeUsd} USD; trade more, or use Market`,
    extra: { errorType: 'GasCostExceedsTradeAmount', details: deltaErrors.gasCostExceedsTradeAmount.message },
  })
}

function checkImpact(route: RouteCandidate, maxImpact: number, maxUsdImpact: number | undefined): void {
  if (route.impactPercent > maxImpact) {
    throw new ApiError(deltaErrors.maxImpact, { extra: { value: `${route.impactPercent.toFixed(2)}%` } })
  }
  if (maxUsdImpact !== undefined && route.lossUsd > maxUsdImpact) {
    throw new ApiError(deltaErrors.maxImpact, { extra: { value: `${route.lossUsd.toFixed(2)} USD` } })
  }
}

function requireToken(chain: ChainVenue, address: string, field: string): DeltaToken {
  const token = resolveDeltaToken(chain, address)
  if (!token) {
    throw deltaError(deltaErrors.tokenNotSupported, `${field} ${address} is not whitelisted on chain ${chain.chainId}`)
  }
  return token
}

function noRoute(reason: string): ApiError {
  return deltaError(deltaErrors.noRoute, reason)
}
