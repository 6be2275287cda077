import type { ApiClient, RequestOptions } from '../client.js'
import { type DeltaOrder, deltaOrderSchema } from './delta-order-schema.js'

export type GetDeltaOrderParameters = RequestOptions & {
  /** The uuid submitDeltaOrder answered. */
  orderId: string
}

export type GetDeltaOrderReturnType = DeltaOrder

/** GET /v2/delta/orders/{orderId}: one order; poll it to follow the order's status. */
export function getDeltaOrder(
  client: ApiClient,
  { signal, timeoutMs, orderId }: GetDeltaOrderParameters,
): Promise<GetDeltaOrderReturnType> {
  return client.request(
    {
      method: 'GET',
      endpoint: 'GET /v2/delta/orders/{orderId}',
      path: `/v2/delta/orders/${encodeURIComponent(orderId)}`,
      signal,
      timeoutMs,
    },
    deltaOrderSchema,
  )
}
