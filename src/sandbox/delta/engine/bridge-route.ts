import type { Address } from 'viem'
import type { DeltaBridge } from '../../../protocol/delta-order.js'
import { sandboxAddress } from '../../chains/catalogue.js'
import { type BridgeProfile, bridgeProfiles } from '../bridges.js'

/** The bridge an order travels through, by its `protocolSelector`; an unknown selector travels by the first profile. */
export function bridgeProfileOf(bridge: DeltaBridge): BridgeProfile {
  const selector = bridge.protocolSelector.toLowerCase()
  const profile = bridgeProfiles.find((candidate) => candidate.protocolSelector.toLowerCase() === selector) ?? bridgeProfiles[0]
  if (!profile) throw new Error('no bridge profiles are defined')
  return profile
}

/** The bridge's own impersonated account: it delivers on the destination chain and refunds on the source chain. */
export function bridgeAccount(profile: BridgeProfile): Address {
  return sandboxAddress(`bridge.${profile.protocol}`)
}
