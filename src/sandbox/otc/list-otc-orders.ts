import type { Address } from 'viem'
import { z } from 'zod'
import { fillableMakerAmount, type StoredOtcOrder } from './otc-order.js'
import type { OtcOrderStore } from './otc-order-store.js'
import { type OtcOrderWire, toOtcOrderWire } from './otc-order-wire.js'

const received = (input: unknown) => `received ${JSON.stringify(input) ?? String(input)}`

const queryIntegerSchema = (min: number, max: number, fallback: number) =>
  z
    .string()
    .regex(/^\d{1,9}$/, { error: (issue) => `expected an integer from ${min} to ${max}, ${received(issue.input)}` })
    .transform(Number)
    .pipe(z.number().min(min).max(max))
    .default(fallback)

/** Query of the maker and taker lists (the RFQ OpenAPI document's rfqListMakerOrders / rfqListTakerOrders). */
export const otcOrderListQuerySchema = z.object({
  type: z.enum(['P2P', 'LIMIT']).optional(),
  limit: queryIntegerSchema(1, 1000, 100),
  offset: queryIntegerSchema(0, Number.MAX_SAFE_INTEGER, 0),
  orderBy: z.enum(['createdAt', 'updatedAt', 'expiry']).default('createdAt'),
  hideSmallBalances: z.enum(['true', 'false'], { error: (issue) => `expected true or false, ${received(issue.input)}` }).optional(),
})

export type OtcOrderListQuery = z.output<typeof otcOrderListQuerySchema>

export type OtcOrderList = { orders: OtcOrderWire[]; limit: number; offset: number; total: number; hasMore: boolean }

export type ListOtcOrdersParameters = {
  chainId: number
  /** `maker`: orders the account signed; `taker`: orders naming it as taker (in `taker` or in nonceAndMeta). */
  role: 'maker' | 'taker'
  account: Address
  query: OtcOrderListQuery
}

/** GET /ft/p2p/{chainId}/maker|taker/{account}: the account's orders, newest first by `orderBy`, paginated. */
export function listOtcOrders(store: OtcOrderStore, { chainId, role, account, query }: ListOtcOrdersParameters): OtcOrderList {
  const wanted = account.toLowerCase()
  const matches = (stored: StoredOtcOrder) =>
    role === 'maker'
      ? stored.order.maker.toLowerCase() === wanted
      : stored.order.taker.toLowerCase() === wanted || stored.takerFromMeta.toLowerCase() === wanted
  const selected = store
    .onChain(chainId)
    .filter(matches)
    .filter((stored) => query.type === undefined || stored.type === query.type)
    // "Small balances": orders with nothing left to fill.
    .filter((stored) => query.hideSmallBalances !== 'true' || fillableMakerAmount(stored) > 0n)
    // The store keeps posting order: reversed, a stable sort puts the later of two equal keys first.
    .reverse()
    .sort((left, right) => sortKey(right, query.orderBy) - sortKey(left, query.orderBy))
  const page = selected.slice(query.offset, query.offset + query.limit)
  return {
    orders: page.map(toOtcOrderWire),
    limit: query.limit,
    offset: query.offset,
    total: selected.length,
    hasMore: query.offset + page.length < selected.length,
  }
}

function sortKey(stored: StoredOtcOrder, orderBy: OtcOrderListQuery['orderBy']): number {
  if (orderBy === 'expiry') return Number(stored.order.expiry)
  return stored[orderBy]
}
