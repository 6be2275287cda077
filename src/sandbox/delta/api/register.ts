import type { FastifyInstance } from 'fastify'
import type { SandboxVenue } from '../../venue/sandbox-venue.js'
import type { DeltaOrderStore } from '../order-store.js'

export type DeltaApiContext = { venue: SandboxVenue; store: DeltaOrderStore }

/** Registers every `/v2/delta/...` route. */
export function registerDeltaApi(_app: FastifyInstance, _context: DeltaApiContext): void {}
