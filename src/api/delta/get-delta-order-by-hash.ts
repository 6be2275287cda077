import type { Hex } from 'viem'
import type { ApiClient, RequestOptions } from '../client.js'
import { type DeltaOrder, deltaOrderSchema } from './delta-order-schema.js'

export type GetDeltaOrderByHashParameters = RequestOptions & {
  /** The EIP-712 order hash (orderHash of buildDeltaOrder). */
  orderHash: Hex
}

export type GetDeltaOrderByHashReturnType = DeltaOrder

/** GET /v2/delta/orders/hash/{hash}: one order by its EIP-712 hash (known before the order id is). */
export function getDeltaOrderByHash(
  client: ApiClient,
  { signal, timeoutMs, orderHash }: GetDeltaOrderByHashParameters,
): Promise<GetDeltaOrderByHashReturnType> {
  return client.request(
    {
      method: 'GET',
      endpoint: 'GET /v2/delta/orders/hash/{hash}',
      path: `/v2/delta/orders/hash/${encodeURIComponent(orderHash)}`,
      signal,
      timeoutMs,
    },
    deltaOrderSchema,
  )
}
