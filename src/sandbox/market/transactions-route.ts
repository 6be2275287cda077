import type { FastifyInstance } from 'fastify'
import { ApiError } from '../server/api-error.js'
import { parseRequestPart } from '../server/validate.js'
import type { SandboxVenue } from '../venue/sandbox-venue.js'
import { buildMarketTransaction, executableRouteChain } from './build-transaction.js'
import { marketErrors } from './market-errors.js'
import { resolveMarketToken, type TokenRole } from './market-token.js'
import { type PriceRouteJson, priceRouteSchema } from './price-route.js'
import { issuedRoutes } from './route-integrity.js'
import { dropNullFields, transactionsBodySchema, transactionsParamsSchema, transactionsQuerySchema } from './transactions-request.js'

/**
 * POST /transactions/{chainId}: the route must come back exactly as issued and younger than 30 s; the answer is the
 * transaction envelope (section 2.5), or with `onlyParams` the router call's arguments.
 */
export function registerTransactionsRoute(app: FastifyInstance, venue: SandboxVenue): void {
  app.post('/transactions/:chainId', async (request) => {
    const { chainId } = parseRequestPart(transactionsParamsSchema, request.params, 'params')
    const query = parseRequestPart(transactionsQuerySchema, request.query, 'query')
    const body = parseRequestPart(transactionsBodySchema, dropNullFields(request.body), 'body')
    // The raw object, not the parsed copy: its exact keys, order and types are what the hmac covers.
    issuedRoutes(venue).verify((request.body as { priceRoute?: unknown }).priceRoute)
    const route = priceRouteSchema.parse(body.priceRoute)
    if (chainId !== route.network) {
      throw new ApiError(marketErrors.chainMismatch, {
        message: `Invalid chainId: the path says ${chainId} but priceRoute.network is ${route.network}; build on the route's network`,
      })
    }
    executableRouteChain(venue, route)
    checkToken(venue, route, body.srcToken, body.srcDecimals, 'src')
    checkToken(venue, route, body.destToken, body.destDecimals, 'dest')
    const { call, envelope } = await buildMarketTransaction(venue, route, body, {
      ignoreChecks: query.ignoreChecks,
      ignoreGasEstimate: query.ignoreGasEstimate,
      eip1559: query.eip1559,
      gasPrice: query.gasPrice,
    })
    return query.onlyParams ? call.params : envelope
  })
}

/** The body's token (address in any case, or symbol) and decimals must be the route's. */
function checkToken(venue: SandboxVenue, route: PriceRouteJson, value: string, decimals: number | undefined, role: TokenRole): void {
  const expected = role === 'src' ? route.srcToken : route.destToken
  const expectedDecimals = role === 'src' ? route.srcDecimals : route.destDecimals
  const chain = venue.chains.get(route.network)
  const given = /^0x[0-9a-fA-F]{40}$/.test(value) || !chain ? value.toLowerCase() : resolveMarketToken(chain, value, role).wire
  if (given !== expected) {
    throw new ApiError(marketErrors.invalidTransactionToken, {
      message: `Invalid token: ${role}Token ${value} is not priceRoute.${role}Token ${expected}`,
    })
  }
  if (decimals !== undefined && decimals !== expectedDecimals) {
    throw new ApiError(marketErrors.invalidTransactionToken, {
      message: `Invalid token: ${role}Decimals ${decimals} is not priceRoute.${role}Decimals ${expectedDecimals}`,
    })
  }
}
