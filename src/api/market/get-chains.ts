import { z } from 'zod'
import type { ApiClient, RequestOptions } from '../client.js'
import { chainIdSchema } from '../wire.js'

const chainSchema = z.object({ chainId: chainIdSchema, name: z.string() })

export type MarketChain = z.output<typeof chainSchema>

export type GetChainsReturnType = MarketChain[]

export type GetChainsParameters = RequestOptions

/** GET /chains: the live list of chains Market supports (shape of the sandbox; the API document does not show it). */
export function getChains(client: ApiClient, { signal, timeoutMs }: GetChainsParameters = {}): Promise<GetChainsReturnType> {
  return client.request(
    { method: 'GET', endpoint: 'GET /chains', path: '/chains', signal, timeoutMs },
    z.object({ chains: z.array(chainSchema) }).transform((answer) => answer.chains),
  )
}
