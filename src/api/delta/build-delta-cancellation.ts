import { z } from 'zod'
import { hashSchema } from '../../domain/wire-fields.js'
import type { ApiClient, RequestOptions } from '../client.js'
import { toSignSchema } from './to-sign-schema.js'

export type BuildDeltaCancellationParameters = RequestOptions & {
  /** Delta V2 order ids of one owner on one chain, at most 100. */
  orderIds: readonly string[]
}

const builtCancellationSchema = z.object({ toSign: toSignSchema, hash: hashSchema })

/** `toSign` over the orders that can still be cancelled (sign it unmodified) and its EIP-712 hash. */
export type BuildDeltaCancellationReturnType = z.output<typeof builtCancellationSchema>

/** POST /v2/delta/orders/build/cancellation: the OrderCancellations typed data the owner signs for cancelDeltaOrders. */
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
