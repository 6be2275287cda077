import type { Address } from 'viem'
import { z } from 'zod'
import { wireAddressSchema } from '../../domain/wire-fields.js'
import type { ApiClient, RequestOptions } from '../client.js'

export type GetContractTakersParameters = RequestOptions & {
  /** Chain id. */
  network: number
}

export type GetContractTakersReturnType = Address[]

/** GET /adapters/contract-takers: the taker contracts whitelisted on a chain. */
export function getContractTakers(
  client: ApiClient,
  { signal, timeoutMs, network }: GetContractTakersParameters,
): Promise<GetContractTakersReturnType> {
  return client.request(
    { method: 'GET', endpoint: 'GET /adapters/contract-takers', path: '/adapters/contract-takers', query: { network }, signal, timeoutMs },
    z.array(wireAddressSchema),
  )
}
