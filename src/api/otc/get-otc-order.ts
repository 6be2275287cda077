import type { Hex } from 'viem'
import type { ApiClient, RequestOptions } from '../client.js'
import { type OtcOrder, otcOrderSchema } from './otc-order-schema.js'

export type GetOtcOrderParameters = RequestOptions & { orderHash: Hex }

export type GetOtcOrderReturnType = OtcOrder

/** GET /ft/order/{orderHash}: a stored OTC order with its current state and balances. */
export function getOtcOrder(client: ApiClient, { signal, timeoutMs, orderHash }: GetOtcOrderParameters): Promise<GetOtcOrderReturnType> {
  return client.request(
    { method: 'GET', endpoint: 'GET /ft/order/{orderHash}', path: `/ft/order/${encodeURIComponent(orderHash)}`, signal, timeoutMs },
    otcOrderSchema,
  )
}
