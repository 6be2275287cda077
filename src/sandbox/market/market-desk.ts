import type { SandboxDesk } from '../server/desk.js'
import type { SandboxVenue } from '../venue/sandbox-venue.js'
import { registerCatalogueRoutes } from './catalogue-routes.js'
import { marketChainState } from './market-chain-state.js'
import { registerPricesRoute } from './prices-route.js'
import { registerSwapRoute } from './swap-route.js'
import { registerTransactionsRoute } from './transactions-route.js'

/** Market API: /prices, /transactions/{chainId}, /swap, /chains, /tokens, /adapters/contract-takers. */
export function createMarketDesk(venue: SandboxVenue): SandboxDesk {
  let warmUp: Promise<unknown> | undefined
  return {
    name: 'market',
    register: (app) => {
      registerPricesRoute(app, venue)
      registerTransactionsRoute(app, venue)
      registerSwapRoute(app, venue)
      registerCatalogueRoutes(app, venue)
    },
    // Gas calibration runs in the background: the first quote on a chain waits for it, startup does not.
    start: () => {
      warmUp = Promise.all([...venue.chains.values()].map((chain) => marketChainState(chain).ready()))
    },
    stop: async () => {
      await warmUp
    },
  }
}
