import type { SandboxVenue } from '../../venue/sandbox-venue.js'
import type { DeltaOrderStore } from '../order-store.js'

/** What every `/v2/delta/...` handler works with: the venue (chains, clock, agents) and the Delta order book. */
export type DeltaApiContext = { venue: SandboxVenue; store: DeltaOrderStore }
