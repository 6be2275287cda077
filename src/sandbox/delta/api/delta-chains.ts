import type { Address } from 'viem'
import type { ApiErrorSpec } from '../../server/api-error.js'
import type { ChainVenue } from '../../venue/chain-venue.js'
import type { SandboxVenue } from '../../venue/sandbox-venue.js'
import { deltaError, deltaErrors } from './delta-errors.js'

export type DeltaChain = { chain: ChainVenue; delta: Address }

/** A running chain with the Delta contract; otherwise the error (422 on trading endpoints, 400 on reads). */
export function requireDeltaChain(venue: SandboxVenue, chainId: number, spec: ApiErrorSpec = deltaErrors.unsupportedChain): DeltaChain {
  const chain = venue.chains.get(chainId)
  const delta = chain?.fixture.contracts.delta
  if (!chain || !delta) {
    const reason = chain ? `chain ${chainId} has no Delta contract` : `chain ${chainId} is not running in this sandbox`
    throw deltaError(spec, reason)
  }
  return { chain, delta }
}

export function findDeltaChain(venue: SandboxVenue, chainId: number): DeltaChain | undefined {
  const chain = venue.chains.get(chainId)
  const delta = chain?.fixture.contracts.delta
  return chain && delta ? { chain, delta } : undefined
}
