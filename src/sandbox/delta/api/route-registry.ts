import { createHmac } from 'node:crypto'
import type { SandboxVenue } from '../../venue/sandbox-venue.js'

export type QuotedRoute = { side: 'SELL' | 'BUY'; quotedAt: number }

/** Routes remembered per run; the oldest are forgotten beyond this (a forgotten route must be re-quoted). */
const maxRemembered = 200_000

/**
 * Integrity of Delta routes. V2 routes carry no `hmac` field, so the sandbox keeps the tag: an HMAC (keyed with the
 * run's route secret) over the route's canonical JSON, where keys are sorted but every value keeps its JSON type, so
 * any edited value, dropped field or number cast from a string changes the tag.
 */
export class RouteRegistry {
  readonly #secret: Buffer
  readonly #quoted = new Map<string, QuotedRoute>()

  constructor(secret: Buffer) {
    this.#secret = secret
  }

  remember(route: unknown, quoted: QuotedRoute): void {
    const tag = this.#tag(route)
    this.#quoted.delete(tag)
    this.#quoted.set(tag, quoted)
    if (this.#quoted.size > maxRemembered) {
      const oldest = this.#quoted.keys().next().value
      if (oldest !== undefined) this.#quoted.delete(oldest)
    }
  }

  /** What the route was quoted as, when it is exactly a route this run returned. */
  recall(route: unknown): QuotedRoute | undefined {
    return this.#quoted.get(this.#tag(route))
  }

  #tag(route: unknown): string {
    return createHmac('sha256', this.#secret).update(canonicalJson(route)).digest('base64')
  }
}

const registries = new WeakMap<SandboxVenue, RouteRegistry>()

/** The registry of a sandbox run (shared by /v2/delta/prices, /v2/quote and the build endpoint). */
export function routeRegistryOf(venue: SandboxVenue): RouteRegistry {
  let registry = registries.get(venue)
  if (!registry) {
    registry = new RouteRegistry(venue.routeSecret)
    registries.set(venue, registry)
  }
  return registry
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`
  }
  return JSON.stringify(value) ?? 'undefined'
}
