import { z } from 'zod'
import { parseRequestPart } from '../../server/validate.js'
import { agentProfiles } from '../agents.js'
import { bridgeableSymbols, bridgeProfiles } from '../bridges.js'
import type { DeltaApiContext } from './delta-api-context.js'
import { findDeltaChain, requireDeltaChain } from './delta-chains.js'
import { deltaErrors } from './delta-errors.js'
import { resolveDeltaToken } from './delta-tokens.js'
import { addressSchema, commaListSchema, queryBooleanSchema, queryIntegerSchema } from './wire.js'

const chainParamsSchema = z.object({ chainId: queryIntegerSchema })

/** GET /v2/delta/agents/list/{chainId}: the names includeAgents / excludeAgents accept. */
export function listDeltaAgents({ venue }: DeltaApiContext, params: unknown): string[] {
  const { chainId } = parseRequestPart(chainParamsSchema, params, 'params')
  requireDeltaChain(venue, chainId, deltaErrors.unsupportedChainOnRead)
  return agentProfiles.map((agent) => agent.name)
}

/** GET /v2/delta/prices/bridge-protocols. */
export function listBridgeProtocols(): { bridgeProtocols: { protocol: string; displayName: string; icon: string }[] } {
  return {
    bridgeProtocols: bridgeProfiles.map((bridge) => ({
      protocol: bridge.protocol,
      displayName: bridge.displayName,
      icon: bridgeIcon(bridge.displayName),
    })),
  }
}

/** The sandbox hosts no icons: a self-contained 1:1 SVG with the bridge's initial. */
function bridgeIcon(displayName: string): string {
  const initial = displayName.replace(/^Sandbox /, '').slice(0, 1)
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><circle cx="16" cy="16" r="16" fill="#444"/><text x="16" y="21" font-size="14" text-anchor="middle" fill="#fff">${initial}</text></svg>`
  return `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`
}

const bridgeRoutesQuerySchema = z.object({
  bridges: commaListSchema.optional(),
  allowBridgeAndSwap: queryBooleanSchema.default(true),
})

/**
 * GET /v2/delta/prices/bridge-routes: every (source chain with Delta, other running chain) lane with the source
 * tokens it takes: the bridgeable ones, or every token when bridge-and-swap is allowed.
 */
export function listBridgeRoutes(
  { venue }: DeltaApiContext,
  query: unknown,
): { routes: { srcChainId: number; destChainId: number; tokens: string[] }[] } {
  const request = parseRequestPart(bridgeRoutesQuerySchema, query, 'query')
  const active = bridgeProfiles.filter((bridge) => request.bridges === undefined || request.bridges.includes(bridge.protocol))
  if (active.length === 0) return { routes: [] }
  const routes: { srcChainId: number; destChainId: number; tokens: string[] }[] = []
  for (const source of venue.chains.values()) {
    if (!findDeltaChain(venue, source.chainId)) continue
    const tokens = source.tokens
      .filter((token) => request.allowBridgeAndSwap || bridgeableSymbols.includes(token.symbol))
      .map((token) => token.address.toLowerCase())
    for (const destination of venue.chains.values()) {
      if (destination.chainId !== source.chainId) routes.push({ srcChainId: source.chainId, destChainId: destination.chainId, tokens })
    }
  }
  return { routes }
}

/** GET /v2/delta/prices/strategies/{chainId}: the documented map of yield strategies, empty (the sandbox has none). */
export function listDeltaStrategies({ venue }: DeltaApiContext, params: unknown): Record<string, never> {
  const { chainId } = parseRequestPart(chainParamsSchema, params, 'params')
  requireDeltaChain(venue, chainId, deltaErrors.unsupportedChainOnRead)
  return {}
}

const tokenSupportedQuerySchema = z.object({ chainId: queryIntegerSchema, token: addressSchema })

/** GET /v2/delta/prices/is-token-supported: a token of a chain with Delta (the native placeholder included). */
export function isDeltaTokenSupported({ venue }: DeltaApiContext, query: unknown): { supported: boolean } {
  const { chainId, token } = parseRequestPart(tokenSupportedQuerySchema, query, 'query')
  const deltaChain = findDeltaChain(venue, chainId)
  return { supported: deltaChain !== undefined && resolveDeltaToken(deltaChain.chain, token) !== undefined }
}
