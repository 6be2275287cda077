import { z } from 'zod'
import { wireAddressSchema, wireChainIdSchema } from '../../domain/wire-fields.js'
import type { ApiClient, RequestOptions } from '../client.js'

export type GetBridgeRoutesParameters = RequestOptions & {
  /** Only these bridge protocols (slugs of getBridgeProtocols). */
  bridges?: readonly string[] | undefined
  /** Default true: source tokens that are swapped before bridging count too. */
  allowBridgeAndSwap?: boolean | undefined
}

const bridgeRouteSchema = z.object({ srcChainId: wireChainIdSchema, destChainId: wireChainIdSchema, tokens: z.array(wireAddressSchema) })

export type BridgeRoute = z.output<typeof bridgeRouteSchema>

export type GetBridgeRoutesReturnType = BridgeRoute[]

/** GET /v2/delta/prices/bridge-routes: the (source chain, destination chain, source tokens) lanes of crosschain Delta. */
export function getBridgeRoutes(client: ApiClient, parameters: GetBridgeRoutesParameters = {}): Promise<GetBridgeRoutesReturnType> {
  const { signal, timeoutMs, ...query } = parameters
  return client.request(
    { method: 'GET', endpoint: 'GET /v2/delta/prices/bridge-routes', path: '/v2/delta/prices/bridge-routes', query, signal, timeoutMs },
    z.object({ routes: z.array(bridgeRouteSchema) }).transform((answer) => answer.routes),
  )
}
