import type { SandboxDesk } from '../server/desk.js'
import type { SandboxVenue } from '../venue/sandbox-venue.js'

/** Market API: /prices, /transactions/{chainId}, /swap, /chains, /tokens, /adapters/contract-takers. */
export function createMarketDesk(_venue: SandboxVenue): SandboxDesk {
  return { name: 'market', register: () => {} }
}
