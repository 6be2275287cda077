import type { FastifyInstance } from 'fastify'
import { ApiError } from '../server/api-error.js'
import { parseRequestPart } from '../server/validate.js'
import type { SandboxVenue } from '../venue/sandbox-venue.js'
import { quotePriceRoute } from './build-price-route.js'
import { buildMarketTransaction } from './build-transaction.js'
import { marketErrors } from './market-errors.js'
import { addressParam, integerParam } from './market-query.js'
import { pricesQuerySchema } from './prices-query.js'
import { partnerOptionsSchema } from './transactions-request.js'

/** GET /swap: GET /prices plus the slippage, user and partner fields of a build. */
const swapQuerySchema = pricesQuerySchema.extend({
  ...partnerOptionsSchema.shape,
  partner: pricesQuerySchema.shape.partner,
  /** Basis points. */
  slippage: integerParam({ max: 10_000 }),
  userAddress: addressParam,
})

/**
 * GET /swap → `{ priceRoute, txParams }`: price and build in one call. As in production, balances and allowances
 * are not checked and `txParams` carries no `gas`.
 */
export function registerSwapRoute(app: FastifyInstance, venue: SandboxVenue): void {
  app.get('/swap', async (request) => {
    const query = parseRequestPart(swapQuerySchema, request.query, 'query')
    if (query.version !== '6.2') {
      throw new ApiError(marketErrors.swapNeedsVersion62, {
        message: `Unsupported version: GET /swap without version=6.2 builds for the legacy v5 router, which the sandbox does not deploy; pass version=6.2`,
      })
    }
    // As in production, GET /swap prices without RFQ liquidity.
    const { route } = await quotePriceRoute(venue, { ...(request.query as Record<string, unknown>), excludeRFQ: 'true' })
    const { envelope } = await buildMarketTransaction(
      venue,
      route,
      {
        ...query,
        srcAmount: route.side === 'SELL' ? BigInt(route.srcAmount) : undefined,
        destAmount: route.side === 'BUY' ? BigInt(route.destAmount) : undefined,
      },
      { ignoreChecks: true, ignoreGasEstimate: true, eip1559: false },
    )
    return { priceRoute: route, txParams: envelope }
  })
}
