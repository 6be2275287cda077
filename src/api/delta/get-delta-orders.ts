import type { Address } from 'viem'
import type { DeltaOrderStatus, OnChainOrderType } from '../../protocol/delta-status.js'
import type { ApiClient, RequestOptions } from '../client.js'
import { type DeltaOrderList, deltaOrderListSchema } from './delta-order-schema.js'

export type GetDeltaOrdersParameters = RequestOptions & {
  /** Whose orders. */
  userAddress: Address
  /** At least 1 (default 1). */
  page?: number | undefined
  /** Page size, 1 to 1000 (default 100). */
  limit?: number | undefined
  /** Source chains (default: all). */
  chainId?: readonly number[] | undefined
  type?: 'MARKET' | 'LIMIT' | undefined
  status?: readonly DeltaOrderStatus[] | undefined
  onChainOrderType?: readonly OnChainOrderType[] | undefined
}

export type GetDeltaOrdersReturnType = DeltaOrderList

/**
 * GET /v2/delta/orders: one page of a user's orders, newest first, with the filters' OpenAPI names (lists are sent
 * comma-separated).
 */
export function getDeltaOrders(client: ApiClient, parameters: GetDeltaOrdersParameters): Promise<GetDeltaOrdersReturnType> {
  const { signal, timeoutMs, ...query } = parameters
  return client.request(
    { method: 'GET', endpoint: 'GET /v2/delta/orders', path: '/v2/delta/orders', query, signal, timeoutMs },
    deltaOrderListSchema,
  )
}
