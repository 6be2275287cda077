import type { Address } from 'viem'
import { z } from 'zod'
import { nativeTokenPlaceholder } from '../../../protocol/addresses.js'
import { deltaOrderStatuses, onChainOrderTypes } from '../../../protocol/delta-status.js'
import { parseRequestPart } from '../../server/validate.js'
import { finalDeltaStatuses, type StoredDeltaOrder } from '../order-store.js'
import type { DeltaApiContext } from './delta-api-context.js'
import { requireDeltaChain } from './delta-chains.js'
import { deltaError, deltaErrors } from './delta-errors.js'
import { type DeltaOrderJson, formatDeltaOrder } from './format-order.js'
import { readSpendable, usableAmount } from './funds-check.js'
import { structFacts } from './signed-struct.js'
import { addressSchema, commaListSchema, queryIntegerSchema, uuidSchema } from './wire.js'

const statuses = deltaOrderStatuses

/** Query of GET /v2/delta/orders, with the OpenAPI document's parameter names; list filters are comma-separated. */
const listQuerySchema = z.object({
  userAddress: addressSchema,
  page: queryIntegerSchema.pipe(z.number().min(1)).default(1),
  limit: queryIntegerSchema.pipe(z.number().min(1).max(1000)).default(100),
  chainId: commaListSchema.pipe(z.array(z.string().regex(/^\d+$/, 'expected chain ids').transform(Number))).optional(),
  type: z.enum(['MARKET', 'LIMIT']).optional(),
  status: commaListSchema.pipe(z.array(z.enum(statuses))).optional(),
  onChainOrderType: commaListSchema.pipe(z.array(z.enum(onChainOrderTypes))).optional(),
})

export type DeltaOrderListJson = { data: DeltaOrderJson[]; total: number; page: number; limit: number; hasMore: boolean }

/** GET /v2/delta/orders: a user's orders, newest first, filtered and paginated (section 2.3). */
export function listDeltaOrders({ store }: DeltaApiContext, query: unknown): DeltaOrderListJson {
  const request = parseRequestPart(listQuerySchema, query, 'query')
  const matching = store.list({
    owner: request.userAddress,
    ...(request.chainId ? { chainIds: request.chainId } : {}),
    ...(request.type ? { type: request.type } : {}),
    ...(request.status ? { statuses: request.status } : {}),
    ...(request.onChainOrderType ? { onChainOrderTypes: request.onChainOrderType } : {}),
  })
  const start = (request.page - 1) * request.limit
  return {
    data: matching.slice(start, start + request.limit).map(formatDeltaOrder),
    total: matching.length,
    page: request.page,
    limit: request.limit,
    hasMore: start + request.limit < matching.length,
  }
}

/** GET /v2/delta/orders/{orderId}. */
export function getDeltaOrder({ store }: DeltaApiContext, params: unknown): DeltaOrderJson {
  const { orderId } = parseRequestPart(z.object({ orderId: uuidSchema }), params, 'params')
  const order = store.get(orderId.toLowerCase())
  if (!order) throw deltaError(deltaErrors.orderNotFound, `no order with id ${orderId}`)
  return formatDeltaOrder(order)
}

/** GET /v2/delta/orders/hash/{hash}. */
export function getDeltaOrderByHash({ store }: DeltaApiContext, params: unknown): DeltaOrderJson {
  const { hash } = parseRequestPart(
    z.object({ hash: z.string().regex(/^0x[0-9a-fA-F]{64}$/, 'expected a 32-byte hash') }),
    params,
    'params',
  )
  const order = store.getByHash(hash)
  if (!order) throw deltaError(deltaErrors.orderNotFound, `no order with hash ${hash}`)
  return formatDeltaOrder(order)
}

const fillableParamsSchema = z.object({
  chainId: queryIntegerSchema,
  userAddress: addressSchema,
  tokenAddress: addressSchema.optional(),
})

/**
 * GET /v2/delta/orders/fillablebalance/{chainId}/{userAddress}[/{tokenAddress}]: per source token, what the user's
 * balance and allowance to the Delta contract leave for new limit orders once the unfilled part of the open limit
 * orders (LIMIT, partially fillable, TWAP) is set aside. Keys are lowercase token addresses; without a token, every
 * token with open commitments.
 */
export async function getFillableBalance({ venue, store }: DeltaApiContext, params: unknown): Promise<Record<string, string>> {
  const request = parseRequestPart(fillableParamsSchema, params, 'params')
  const { chain, delta } = requireDeltaChain(venue, request.chainId, deltaErrors.unsupportedChainOnRead)
  const committed = new Map<string, bigint>()
  for (const order of store.list({ owner: request.userAddress, chainIds: [request.chainId] })) {
    if (!isOpenLimitOrder(order)) continue
    const facts = structFacts(order.signed)
    const remaining = facts.maxSrcAmount - order.filledSrcAmount
    const token = facts.srcToken.toLowerCase()
    committed.set(token, (committed.get(token) ?? 0n) + (remaining > 0n ? remaining : 0n))
  }
  const tokens = request.tokenAddress ? [request.tokenAddress.toLowerCase()] : [...committed.keys()]
  const now = BigInt(Math.floor(venue.clock.now() / 1000))
  const entries = await Promise.all(
    tokens.map(async (token) => {
      const native = token === nativeTokenPlaceholder.toLowerCase()
      const spendable = await readSpendable({
        chain,
        delta,
        owner: request.userAddress,
        token: token as Address,
        native,
        permitType: 'none',
        now,
      })
      const left = usableAmount(spendable) - (committed.get(token) ?? 0n)
      return [token, (left > 0n ? left : 0n).toString()] as const
    }),
  )
  return Object.fromEntries(entries)
}

function isOpenLimitOrder(order: StoredDeltaOrder): boolean {
  if (finalDeltaStatuses.has(order.status) || order.status === 'CANCELLING') return false
  return (
    order.type === 'LIMIT' ||
    order.onChainOrderType === 'FillableOrder' ||
    order.onChainOrderType === 'TWAPOrder' ||
    order.onChainOrderType === 'TWAPBuyOrder'
  )
}
