import { z } from 'zod'
import type { ApiClient, RequestOptions } from '../client.js'

const bridgeProtocolSchema = z.object({
  /** Stable slug: what includeBridges / excludeBridges take. */
  protocol: z.string(),
  displayName: z.string(),
  /** URL (or data URL) of a square SVG icon. */
  icon: z.string(),
})

export type BridgeProtocol = z.output<typeof bridgeProtocolSchema>

export type GetBridgeProtocolsReturnType = BridgeProtocol[]

export type GetBridgeProtocolsParameters = RequestOptions

/** GET /v2/delta/prices/bridge-protocols: the active bridge protocols. */
export function getBridgeProtocols(
  client: ApiClient,
  { signal, timeoutMs }: GetBridgeProtocolsParameters = {},
): Promise<GetBridgeProtocolsReturnType> {
  return client.request(
    { method: 'GET', endpoint: 'GET /v2/delta/prices/bridge-protocols', path: '/v2/delta/prices/bridge-protocols', signal, timeoutMs },
    z.object({ bridgeProtocols: z.array(bridgeProtocolSchema) }).transform((answer) => answer.bridgeProtocols),
  )
}
