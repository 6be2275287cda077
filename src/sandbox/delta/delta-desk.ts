import type { SandboxDesk } from '../server/desk.js'
import type { SandboxVenue } from '../venue/sandbox-venue.js'
import { registerDeltaApi } from './api/register.js'
import { createDeltaEngine, type DeltaEngine } from './engine/engine.js'
import { DeltaOrderStore } from './order-store.js'

/** Delta V2: the API (prices, build, submit, cancel, reads) over one order store, and the engine that fills it. */
export function createDeltaDesk(venue: SandboxVenue): SandboxDesk & { store: DeltaOrderStore; engine: DeltaEngine } {
  const store = new DeltaOrderStore()
  const engine = createDeltaEngine({ venue, store })
  return {
    name: 'delta',
    store,
    engine,
    register: (app) => {
      registerDeltaApi(app, { venue, store })
      engine.registerAdminRoutes(app)
    },
    start: () => engine.start(),
    stop: () => engine.stop(),
  }
}
