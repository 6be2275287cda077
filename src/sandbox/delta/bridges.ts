import type { Hex } from 'viem'

/** A simulated bridge between the local chains. */
export type BridgeProfile = {
  /** Slug for `includeBridges` / `excludeBridges` and `route.bridge.protocol`. */
  protocol: string
  displayName: string
  /** `bridge.protocolSelector` of orders through it. */
  protocolSelector: Hex
  /** Delivery time in sandbox milliseconds. */
  estimatedTimeMs: number
  /** Fee, basis points of the bridged amount. */
  feeBps: number
  /** Share of transfers that fail and are refunded on the source chain (0..1), drawn from the sandbox's seeded random. */
  failureRate: number
}

export const bridgeProfiles: readonly BridgeProfile[] = [
  {
    protocol: 'sandbox-fast',
    displayName: 'Sandbox Fast Bridge',
    protocolSelector: '0x0f5a1b01',
    estimatedTimeMs: 30_000,
    feeBps: 8,
    failureRate: 0.05,
  },
  {
    protocol: 'sandbox-cheap',
    displayName: 'Sandbox Cheap Bridge',
    protocolSelector: '0x0f5a1b02',
    estimatedTimeMs: 180_000,
    feeBps: 2,
    failureRate: 0.05,
  },
]

/** Tokens that can cross: a lane exists between any two running chains for these symbols (bridge-and-swap covers the rest). */
export const bridgeableSymbols: readonly string[] = ['USDC', 'USDT', 'WETH', 'DAI']
