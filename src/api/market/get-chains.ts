import { z } from 'zod'
import { wireChainIdSchema } from '../../domain/wire-fields.js'
import type { ApiClient, RequestOptions } from '../client.js'

const chainSchema = z.object({ chainId: wireChainIdSchema, name: z.string() })

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
