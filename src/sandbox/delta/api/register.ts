import type { FastifyInstance } from 'fastify'
import { buildDeltaOrder } from './build-order.js'
import { buildDeltaCancellation, cancelDeltaOrders } from './cancel-orders.js'
import type { DeltaApiContext } from './delta-api-context.js'
import { isDeltaTokenSupported, listBridgeProtocols, listBridgeRoutes, listDeltaAgents, listDeltaStrategies } from './delta-catalogue.js'
import { priceDelta } from './price-delta.js'
import { getDeltaOrder, getDeltaOrderByHash, getFillableBalance, listDeltaOrders } from './read-orders.js'
import { submitDeltaOrder } from './submit-order.js'

/** Registers every `/v2/delta/...` route. */
export function registerDeltaApi(app: FastifyInstance, context: DeltaApiContext): void {
  app.get('/v2/delta/prices', (request) => priceDelta(context, request.query))
  app.get('/v2/delta/prices/bridge-routes', async (request) => listBridgeRoutes(context, request.query))
  app.get('/v2/delta/prices/bridge-protocols', async () => listBridgeProtocols())
  app.get('/v2/delta/prices/strategies/:chainId', async (request) => listDeltaStrategies(context, request.params))
  app.get('/v2/delta/prices/is-token-supported', async (request) => isDeltaTokenSupported(context, request.query))
  app.get('/v2/delta/agents/list/:chainId', async (request) => listDeltaAgents(context, request.params))

  app.post('/v2/delta/orders/build', async (request) => buildDeltaOrder(context, request.body))
  app.post('/v2/delta/orders', (request) => submitDeltaOrder(context, request.body))
  app.post('/v2/delta/orders/build/cancellation', async (request) => buildDeltaCancellation(context, request.body))
  app.post('/v2/delta/orders/cancel', (request) => cancelDeltaOrders(context, request.body))

  app.get('/v2/delta/orders', async (request) => listDeltaOrders(context, request.query))
  app.get('/v2/delta/orders/hash/:hash', async (request) => getDeltaOrderByHash(context, request.params))
  app.get('/v2/delta/orders/fillablebalance/:chainId/:userAddress', (request) => getFillableBalance(context, request.params))
  app.get('/v2/delta/orders/fillablebalance/:chainId/:userAddress/:tokenAddress', (request) => getFillableBalance(context, request.params))
  app.get('/v2/delta/orders/:orderId', async (request) => getDeltaOrder(context, request.params))
}
