import { z } from 'zod'
import type { ApiClient, RequestOptions } from '../client.js'

export type GetDeltaAgentsParameters = RequestOptions & { chainId: number }

/** Agent names, as includeAgents / excludeAgents take them. */
export type GetDeltaAgentsReturnType = string[]

/** GET /v2/delta/agents/list/{chainId}: the agents competing in the auctions of a chain. */
export function getDeltaAgents(
  client: ApiClient,
  { signal, timeoutMs, chainId }: GetDeltaAgentsParameters,
): Promise<GetDeltaAgentsReturnType> {
  return client.request(
    { method: 'GET', endpoint: 'GET /v2/delta/agents/list/{chainId}', path: `/v2/delta/agents/list/${chainId}`, signal, timeoutMs },
    z.array(z.string()),
  )
}
