import { z } from 'zod'
import { hashSchema } from '../../domain/wire-fields.js'
import type { ApiClient, RequestOptions } from '../client.js'
import { toSignSchema } from './to-sign-schema.js'

/** Section 8: the service refuses more order ids than this per build-cancellation or cancel call (400 `orderIds.length > 100`). */
export const maxOrderIdsPerCancellation = 100

export type BuildDeltaCancellationParameters = RequestOptions & {
  /** Delta V2 order ids of one owner on one chain, at most maxOrderIdsPerCancellation. */
  orderIds: readonly string[]
}

const builtCancellationSchema = z.object({ toSign: toSignSchema, hash: hashSchema })

/** `toSign` over the orders that can still be cancelled (sign it unmodified) and its EIP-712 hash. */
export type BuildDeltaCancellationReturnType = z.output<typeof builtCancellationSchema>

/**
 * POST /v2/delta/orders/build/cancellation: the OrderCancellations typed data the owner signs for cancelDeltaOrders.
 * Orders already CANCELLING or final are left out of it; when none is left the service answers
 * OrdersAlreadyFinalizedError. More than 100 ids: TooManyOrderIdsError (split them into batches).
 */
export function buildDeltaCancellation(
  client: ApiClient,
  { signal, timeoutMs, orderIds }: BuildDeltaCancellationParameters,
): Promise<BuildDeltaCancellationReturnType> {
  return client.request(
    {
      method: 'POST',
      endpoint: 'POST /v2/delta/orders/build/cancellation',
      path: '/v2/delta/orders/build/cancellation',
      body: { orderIds },
      signal,
      timeoutMs,
    },
    builtCancellationSchema,
  )
}
