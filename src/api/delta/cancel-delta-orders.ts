import type { Hex } from 'viem'
import { z } from 'zod'
import { uuidSchema } from '../../domain/wire-fields.js'
import type { ApiClient, RequestOptions } from '../client.js'

export type CancelDeltaOrdersParameters = RequestOptions & {
  /** The orderIds of the signed cancellation (toSign.value.orderIds), at most maxOrderIdsPerCancellation (100). */
  orderIds: readonly string[]
  /** The owner's signature over the cancellation's toSign, signed exactly as returned. */
  signature: Hex
}

const cancelledSchema = z.object({ cancelled: z.array(uuidSchema) })

export type CancelDeltaOrdersReturnType = z.output<typeof cancelledSchema>

/**
 * POST /v2/delta/orders/cancel: orders move to CANCELLING, then CANCELLED; an order whose auction already started keeps
 * its status for a polling interval (the cancel is queued and does not stop an in-flight fill). More than 100 ids:
 * TooManyOrderIdsError; an order already settled: OrderAlreadySettledError for the whole call.
 */
export function cancelDeltaOrders(
  client: ApiClient,
  { signal, timeoutMs, orderIds, signature }: CancelDeltaOrdersParameters,
): Promise<CancelDeltaOrdersReturnType> {
  return client.request(
    {
      method: 'POST',
      endpoint: 'POST /v2/delta/orders/cancel',
      path: '/v2/delta/orders/cancel',
      body: { orderIds, signature },
      signal,
      timeoutMs,
    },
    cancelledSchema,
  )
}
