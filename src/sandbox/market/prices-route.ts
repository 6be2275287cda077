import type { FastifyInstance } from 'fastify'
import type { SandboxVenue } from '../venue/sandbox-venue.js'
import { quotePriceRoute } from './build-price-route.js'

/** GET /prices → `{ priceRoute }`. The route's JSON is sent as tagged, so the bytes are the ones the hmac covers. */
export function registerPricesRoute(app: FastifyInstance, venue: SandboxVenue): void {
  app.get('/prices', async (request, reply) => {
    const { json } = await quotePriceRoute(venue, request.query as Record<string, unknown>)
    return reply.type('application/json; charset=utf-8').send(`{"priceRoute":${json}}`)
  })
}
