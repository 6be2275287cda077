import type { FastifyInstance } from 'fastify'
import { ApiError } from '../server/api-error.js'
import { parseRequestPart } from '../server/validate.js'
import { fillableBalance } from './fillable-balance.js'
import { listOtcOrders, otcOrderListQuerySchema } from './list-otc-orders.js'
import { otcCounterpartyAddresses } from './otc-counterparty-accounts.js'
import { otcErrors } from './otc-errors.js'
import {
  accountParamsSchema,
  chainIdParamsSchema,
  fillableBalanceParamsSchema,
  orderHashParamsSchema,
  otcOrderBodySchema,
} from './otc-order-request.js'
import { toOtcOrderWire } from './otc-order-wire.js'
import { type OtcDeskContext, postOtcOrder } from './post-otc-order.js'

/** Registers the OTC routes (`/ft/...`) and the emulator's `/_sandbox/otc/counterparties`. */
export function registerOtcApi(app: FastifyInstance, context: OtcDeskContext): void {
  // The server ignores trailing slashes, so this serves both /ft/p2p/1/ and /ft/p2p/1. The real service wraps the
  // stored order as `{ order }` (the official SDK's postP2POrder reads `response.order`); section 2.6 shows it bare.
  app.post('/ft/p2p/:chainId/', async (request) => {
    const { chainId } = parseRequestPart(chainIdParamsSchema, request.params, 'params')
    const body = parseRequestPart(otcOrderBodySchema, request.body, 'body')
    return { order: toOtcOrderWire(await postOtcOrder(context, { chainId, body })) }
  })

  app.get('/ft/order/:orderHash', async (request) => {
    const { orderHash } = parseRequestPart(orderHashParamsSchema, request.params, 'params')
    const stored = context.store.get(orderHash)
    if (!stored) throw new ApiError(otcErrors.orderNotFound, { message: `Order not found: no OTC order with hash ${orderHash}` })
    return toOtcOrderWire(stored)
  })

  for (const role of ['maker', 'taker'] as const) {
    app.get(`/ft/p2p/:chainId/${role}/:account`, async (request) => {
      const { chainId, account } = parseRequestPart(accountParamsSchema, request.params, 'params')
      const query = parseRequestPart(otcOrderListQuerySchema, request.query, 'query')
      if (!context.trackers.has(chainId)) {
        throw new ApiError(otcErrors.unsupportedChainList, {
          message: `Unsupported chain: ${chainId} is not running in this sandbox (running: ${[...context.trackers.keys()].join(', ')})`,
        })
      }
      return listOtcOrders(context.store, { chainId, role, account, query })
    })
  }

  const fillableBalanceHandler = async (request: { params: unknown }) => {
    const { chainId, account, token } = parseRequestPart(fillableBalanceParamsSchema, request.params, 'params')
    if (!context.trackers.has(chainId)) {
      throw new ApiError(otcErrors.unsupportedChainFillableBalance, {
        message: `Unsupported chain: ${chainId} is not running in this sandbox (running: ${[...context.trackers.keys()].join(', ')})`,
      })
    }
    return fillableBalance(context.store, { chainId, account, token })
  }
  app.get('/ft/fillablebalance/:chainId/:account', fillableBalanceHandler)
  app.get('/ft/fillablebalance/:chainId/:account/:token', fillableBalanceHandler)

  app.get('/_sandbox/otc/counterparties', async () => ({
    counterparties: otcCounterpartyAddresses(),
    note: 'Name one of these as `taker` of a P2P order: it fills the order a few sandbox seconds after the order becomes PENDING.',
  }))
}
