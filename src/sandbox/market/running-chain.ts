import { ApiError } from '../server/api-error.js'
import type { ChainVenue } from '../venue/chain-venue.js'
import type { SandboxVenue } from '../venue/sandbox-venue.js'
import { marketErrors } from './market-errors.js'

/** The chain a Market request names; 422 `Unsupported chain` when the sandbox does not run it. */
export function requireRunningChain(venue: SandboxVenue, network: number): ChainVenue {
  const chain = venue.chains.get(network)
  if (!chain) {
    throw new ApiError(marketErrors.unsupportedChain, {
      message: `Unsupported chain: network ${network} is not running in this sandbox (running: ${[...venue.chains.keys()].join(', ')})`,
    })
  }
  return chain
}
