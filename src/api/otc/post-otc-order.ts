import type { Hex } from 'viem'
import type { RfqOrder } from '../../protocol/rfq-order.js'
import type { ApiClient, RequestOptions } from '../client.js'
import { type OtcOrder, postedOtcOrderSchema } from './otc-order-schema.js'

export type PostOtcOrderParameters = RequestOptions & {
  /** Must be the chainId of the signed EIP-712 domain. */
  chainId: number
  /** The order as signed (the RFQ contract's Order struct). */
  order: RfqOrder
  /** The maker's EIP-712 signature under the RFQ domain of the chain. */
  signature: Hex
  /** Optional encoded permit for makerAsset. */
  permitMakerAsset?: Hex | null | undefined
}

export type PostOtcOrderReturnType = OtcOrder

/**
 * POST /ft/p2p/{chainId}/: posts a maker-signed P2P order (no gas spent); answers the stored order and its state (read
 * from `{ order }` as the service wraps it, or bare as section 2.6 shows it).
 */
export function postOtcOrder(
  client: ApiClient,
  { signal, timeoutMs, chainId, order, signature, permitMakerAsset }: PostOtcOrderParameters,
): Promise<PostOtcOrderReturnType> {
  return client.request(
    {
      method: 'POST',
      endpoint: 'POST /ft/p2p/{chainId}/',
      path: `/ft/p2p/${chainId}/`,
      body: {
        nonceAndMeta: order.nonceAndMeta.toString(),
        expiry: Number(order.expiry),
        makerAsset: order.makerAsset,
        takerAsset: order.takerAsset,
        makerAmount: order.makerAmount.toString(),
        takerAmount: order.takerAmount.toString(),
        maker: order.maker,
        taker: order.taker,
        signature,
        permitMakerAsset: permitMakerAsset ?? null,
      },
      signal,
      timeoutMs,
    },
    postedOtcOrderSchema,
  )
}
