import type { FastifyInstance } from 'fastify'
import { z } from 'zod'
import { marketRouterAddress, nativeTokenPlaceholder } from '../../protocol/addresses.js'
import { chainName } from '../server/resources-desk.js'
import { parseRequestPart } from '../server/validate.js'
import type { ChainVenue } from '../venue/chain-venue.js'
import type { SandboxVenue } from '../venue/sandbox-venue.js'
import { integerParam } from './market-query.js'
import { nativeSymbol } from './market-token.js'
import { requireRunningChain } from './running-chain.js'

const networkQuerySchema = z.object({ network: integerParam({ min: 1 }).default(1) })
const networkParamsSchema = z.object({ network: integerParam({ min: 1 }) })

/** GET /chains, GET /tokens[/{network}], GET /adapters/contract-takers: what the Market side of the sandbox offers. */
export function registerCatalogueRoutes(app: FastifyInstance, venue: SandboxVenue): void {
  app.get('/chains', async () => ({
    chains: [...venue.chains.values()].map((chain) => ({ chainId: chain.chainId, name: chainName(chain.chainId) })),
  }))
  app.get('/tokens', async (request) =>
    listTokens(requireRunningChain(venue, parseRequestPart(networkQuerySchema, request.query, 'query').network)),
  )
  app.get('/tokens/:network', async (request) =>
    listTokens(requireRunningChain(venue, parseRequestPart(networkParamsSchema, request.params, 'params').network)),
  )
  app.get('/adapters/contract-takers', async (request) => {
    requireRunningChain(venue, parseRequestPart(networkQuerySchema, request.query, 'query').network)
    // Contracts allowed to take RFQ liquidity on behalf of users: in the sandbox, the Market router.
    return [marketRouterAddress]
  })
}

/** `{ tokens: [{ symbol, address, decimals, network }] }`, the native asset first under its placeholder. */
function listTokens(chain: ChainVenue) {
  return {
    tokens: [
      { symbol: nativeSymbol, address: nativeTokenPlaceholder, decimals: 18, network: chain.chainId },
      ...chain.tokens.map((token) => ({ symbol: token.symbol, address: token.address, decimals: token.decimals, network: chain.chainId })),
    ],
  }
}
