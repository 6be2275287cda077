import { createHmac, timingSafeEqual } from 'node:crypto'
import { ApiError } from '../server/api-error.js'
import type { SandboxVenue } from '../venue/sandbox-venue.js'
import { marketErrors } from './market-errors.js'

/** A Market priceRoute is accepted by POST /transactions for this long (sandbox time), as in production (about 30 s). */
export const priceRouteMaxAgeMs = 30_000

/** Length of the tag: production's hmac is 40 hex characters; ours is HMAC-SHA256 truncated to that length. */
const hmacLength = 40

/**
 * The routes this sandbox run has issued: their `hmac` (HMAC-SHA256 with the run's secret over the route's JSON as
 * sent, without `hmac`) and when they were issued, so a build can tell a modified route from a stale one.
 */
export class IssuedRoutes {
  readonly #secret: Buffer
  readonly #now: () => number
  /** hmac → issue time; insertion order is issue order, so pruning stops at the first young entry. */
  readonly #issued = new Map<string, number>()

  constructor(secret: Buffer, now: () => number) {
    this.#secret = secret
    this.#now = now
  }

  /** Tags a route (an object without `hmac`) and remembers it; returns the tag and the route's JSON with the tag appended. */
  issue(route: object): { hmac: string; json: string } {
    const body = JSON.stringify(route)
    const hmac = this.#tag(body)
    const now = this.#now()
    this.#issued.delete(hmac)
    this.#issued.set(hmac, now)
    this.#prune(now)
    return { hmac, json: `${body.slice(0, -1)},"hmac":"${hmac}"}` }
  }

  /** Throws `Invalid priceRoute` unless the route is exactly as issued, `Stale priceRoute` when it is too old. */
  verify(route: unknown): void {
    if (typeof route !== 'object' || route === null || Array.isArray(route))
      throw invalid('priceRoute must be the object GET /prices returned')
    const keys = Object.keys(route)
    const { hmac, ...rest } = route as Record<string, unknown>
    if (typeof hmac !== 'string') throw invalid('priceRoute.hmac is missing')
    if (keys.at(-1) !== 'hmac') throw invalid('priceRoute keys were re-ordered (hmac must stay last)')
    const expected = Buffer.from(this.#tag(JSON.stringify(rest)))
    const given = Buffer.from(hmac)
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      throw invalid('priceRoute was modified after GET /prices (values, number/string types and key order must stay as returned)')
    }
    const issuedAt = this.#issued.get(hmac)
    const age = issuedAt === undefined ? undefined : this.#now() - issuedAt
    if (age === undefined || age > priceRouteMaxAgeMs) {
      const ago = age === undefined ? `more than ${priceRouteMaxAgeMs / 1000} s` : `${(age / 1000).toFixed(1)} s`
      throw new ApiError(marketErrors.stalePriceRoute, {
        message: `Stale priceRoute: it was quoted ${ago} ago (sandbox time) and routes expire after ${priceRouteMaxAgeMs / 1000} s; re-quote with GET /prices`,
      })
    }
  }

  #tag(body: string): string {
    return createHmac('sha256', this.#secret).update(body).digest('hex').slice(0, hmacLength)
  }

  #prune(now: number): void {
    for (const [hmac, issuedAt] of this.#issued) {
      if (now - issuedAt <= priceRouteMaxAgeMs) break
      this.#issued.delete(hmac)
    }
  }
}

function invalid(detail: string): ApiError {
  return new ApiError(marketErrors.invalidPriceRoute, { message: `Invalid priceRoute: ${detail}` })
}

const registries = new WeakMap<SandboxVenue, IssuedRoutes>()

/** The venue's registry: shared by GET /prices, GET /swap, the unified quote and POST /transactions. */
export function issuedRoutes(venue: SandboxVenue): IssuedRoutes {
  let registry = registries.get(venue)
  if (!registry) {
    registry = new IssuedRoutes(venue.routeSecret, () => venue.clock.now())
    registries.set(venue, registry)
  }
  return registry
}
