import type { Address, Hex } from 'viem'
import { z } from 'zod'
import { hashSchema, type Side } from '../../domain/wire-fields.js'
import type { OnChainOrderType } from '../../protocol/delta-status.js'
import type { ApiClient, RequestOptions } from '../client.js'
import type { DeltaRoute } from './delta-price-schema.js'
import { toSignSchema } from './to-sign-schema.js'

export type BuildDeltaOrderParameters = RequestOptions & {
  /** A route of getDeltaPrices or getQuote (the recommended one or an alternative); its `raw` JSON is sent. */
  route: Pick<DeltaRoute, 'raw'>
  /** The side of the price the route comes from. */
  side: Side
  owner: Address
  /** Default: owner. */
  beneficiary?: Address | undefined
  /** Unix seconds after which the order cannot be filled. */
  deadline: number
  nonce?: bigint | undefined
  /** Permit / Permit2 payload; `0x` (default) relies on an on-chain approval, `0x01` on an existing Permit2 allowance. */
  permit?: Hex | undefined
  /** Basis points (100 = 1 %), 0 to 10000. */
  slippage?: number | undefined
  /** Overrides the computed destAmount (SELL) / srcAmount (BUY). */
  limitAmount?: bigint | undefined
  metadata?: Hex | undefined
  partiallyFillable?: boolean | undefined
  type?: 'MARKET' | 'LIMIT' | undefined
  /** Default: the client's partner. */
  partner?: string | undefined
  partnerAddress?: Address | undefined
  /** 0 to 200. */
  partnerFeeBps?: number | undefined
  partnerTakesSurplus?: boolean | undefined
  capSurplus?: boolean | undefined
  orderType?: OnChainOrderType | undefined
  /** ExternalOrder. */
  handler?: Address | undefined
  /** ExternalOrder. */
  data?: Hex | undefined
  /** ProductiveOrder: a vault of getDeltaStrategies. */
  strategy?: Address | undefined
  useShares?: boolean | undefined
  /** TWAP: seconds between slices, at least 60. */
  interval?: number | undefined
  /** TWAP: at least 2. */
  numSlices?: number | undefined
  /** TWAPOrder; the route must quote floor(totalSrcAmount / numSlices). */
  totalSrcAmount?: bigint | undefined
  /** TWAPBuyOrder; the route must quote floor(totalDestAmount / numSlices) of the destination. */
  totalDestAmount?: bigint | undefined
  /** TWAPBuyOrder. */
  maxSrcAmount?: bigint | undefined
}

const builtOrderSchema = z.object({ toSign: toSignSchema, orderHash: hashSchema })

/** `toSign` (sign it as returned; submit `toSign.value` as the order) and the order's EIP-712 hash. */
export type BuildDeltaOrderReturnType = z.output<typeof builtOrderSchema>

/** POST /v2/delta/orders/build: the EIP-712 typed data of an order over a quoted route, built by the service. */
export function buildDeltaOrder(client: ApiClient, parameters: BuildDeltaOrderParameters): Promise<BuildDeltaOrderReturnType> {
  const { signal, timeoutMs, route, nonce, limitAmount, totalSrcAmount, totalDestAmount, maxSrcAmount, partner, ...fields } = parameters
  return client.request(
    {
      method: 'POST',
      endpoint: 'POST /v2/delta/orders/build',
      path: '/v2/delta/orders/build',
      body: {
        ...fields,
        // The route goes back exactly as quoted: the service rejects re-encoded numbers and edited fields.
        route: route.raw,
        partner: partner ?? client.partner,
        nonce: nonce?.toString(),
        limitAmount: limitAmount?.toString(),
        totalSrcAmount: totalSrcAmount?.toString(),
        totalDestAmount: totalDestAmount?.toString(),
        maxSrcAmount: maxSrcAmount?.toString(),
      },
      signal,
      timeoutMs,
    },
    builtOrderSchema,
  )
}
