import { z } from 'zod'
import { wireAddressSchema } from '../../domain/wire-fields.js'
import type { ApiClient, RequestOptions } from '../client.js'

/** The roles of one chain; a role not deployed on the chain is absent (Delta is missing on chains 100 and 43114). */
const chainContractsSchema = z.object({
  name: z.string(),
  /** Market router v6.2 (also the Market spender). */
  augustusV6_2: wireAddressSchema.optional(),
  /** Delta contract (the Delta spender). */
  delta: wireAddressSchema.optional(),
  /** Wrapped native token used by Delta. */
  deltaWrappedNative: wireAddressSchema.optional(),
  /** RFQ contract (the OTC spender and EIP-712 verifying contract). */
  augustusRFQ: wireAddressSchema.optional(),
  feeClaimer: wireAddressSchema.optional(),
})

export type ChainContracts = z.output<typeof chainContractsSchema>

export const contractsSchema = z
  .object({
    _meta: z.looseObject({ description: z.string().optional(), lastUpdated: z.string().optional() }).optional(),
    chains: z.record(z.string().regex(/^\d+$/, { error: 'expected a chain id as key' }), chainContractsSchema),
  })
  .transform(({ _meta, chains }) => ({ meta: _meta ?? {}, chains: byChainId(chains) }))

export type Contracts = z.output<typeof contractsSchema>

function byChainId(chains: Record<string, ChainContracts>): ReadonlyMap<number, ChainContracts> {
  return new Map(Object.entries(chains).map(([chainId, roles]) => [Number(chainId), roles]))
}

export type GetContractsParameters = RequestOptions

export type GetContractsReturnType = Contracts

/** GET /resources/contracts.json: the deployed contracts per chain id, the runtime source of which modes a chain has. */
export function getContracts(client: ApiClient, { signal, timeoutMs }: GetContractsParameters = {}): Promise<GetContractsReturnType> {
  return client.request(
    { method: 'GET', endpoint: 'GET /resources/contracts.json', path: '/resources/contracts.json', signal, timeoutMs },
    contractsSchema,
  )
}
