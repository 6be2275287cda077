import type { Address, Hex } from 'viem'
import type { ApiClient, RequestOptions } from '../client.js'
import type { JsonObject } from '../json.js'
import { type DeltaOrder, deltaOrderSchema } from './delta-order-schema.js'

export type SubmitDeltaOrderParameters = RequestOptions & {
  /** The order's source chain (the chainId of toSign.domain). */
  chainId: number
  /** `toSign.value` of buildDeltaOrder, verbatim. */
  order: JsonObject
  /** The owner's EIP-712 signature over toSign (65 bytes, or 64 in ERC-2098 compact form). */
  signature: Hex
  /** Default: the client's partner, else `anon`. */
  partner?: string | undefined
  /** Default MARKET. */
  type?: 'MARKET' | 'LIMIT' | undefined
  referrerAddress?: Address | undefined
  partiallyFillable?: boolean | undefined
  includeAgents?: readonly string[] | undefined
  excludeAgents?: readonly string[] | undefined
}

export type SubmitDeltaOrderReturnType = DeltaOrder

/** POST /v2/delta/orders: submits a signed order for the agents' auction; answers the stored order (PENDING). */
export function submitDeltaOrder(client: ApiClient, parameters: SubmitDeltaOrderParameters): Promise<SubmitDeltaOrderReturnType> {
  const { signal, timeoutMs, partner, ...fields } = parameters
  return client.request(
    {
      method: 'POST',
      endpoint: 'POST /v2/delta/orders',
      path: '/v2/delta/orders',
      body: { ...fields, partner: partner ?? client.partner ?? 'anon' },
      signal,
      timeoutMs,
    },
    deltaOrderSchema,
  )
}
