import type { SandboxDesk } from '../server/desk.js'
import type { SandboxVenue } from '../venue/sandbox-venue.js'

/** OTC order book (/ft/...) and the simulated P2P counterparty. */
export function createOtcDesk(_venue: SandboxVenue): SandboxDesk {
  return { name: 'otc', register: () => {} }
}
