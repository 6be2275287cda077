import type { SandboxDesk } from '../server/desk.js'
import type { SandboxVenue } from '../venue/sandbox-venue.js'

/** Delta V2 API, agents and bridge. */
export function createDeltaDesk(_venue: SandboxVenue): SandboxDesk {
  return { name: 'delta', register: () => {} }
}
