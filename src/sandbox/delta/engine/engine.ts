import type { SandboxVenue } from '../../venue/sandbox-venue.js'
import type { DeltaOrderStore } from '../order-store.js'

export type DeltaEngine = { start: () => Promise<void>; stop: () => Promise<void> }

/** Agents, auctions, on-chain settlement, TWAP and LIMIT scheduling, suspension, expiry, bridge and refunds. */
export function createDeltaEngine(_context: { venue: SandboxVenue; store: DeltaOrderStore }): DeltaEngine {
  return { start: async () => {}, stop: async () => {} }
}
