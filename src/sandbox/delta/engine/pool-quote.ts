import type { Address } from 'viem'
import { nativeTokenPlaceholder } from '../../../protocol/addresses.js'
import { findBestRoute, type Side } from '../../market/route-finder.js'
import type { ChainVenue } from '../../venue/chain-venue.js'
import type { SandboxVenue } from '../../venue/sandbox-venue.js'
import { bridgeProfileOf } from './bridge-route.js'
import { isNative, type OrderTerms } from './order-terms.js'

/**
 * What the pools give for one fill: for a SELL of `amount` source, the destination they pay; for a BUY of `amount`
 * destination, the source they need. Crosschain: the source leg swaps on the source chain into the order's
 * destination asset, the bridge keeps its fee, and a destination leg swaps into the delivered token when it differs.
 * Undefined when no pool path exists.
 */
export function quoteOnPools(venue: SandboxVenue, chainId: number, terms: OrderTerms, amount: bigint): bigint | undefined {
  const source = venue.chains.get(chainId)
  if (!source) return undefined
  if (!terms.bridge) return poolAmount(source, terms.srcToken, terms.destToken, amount, terms.side)
  const destination = venue.chains.get(Number(terms.bridge.destinationChainId))
  if (!destination) return undefined
  const legs = crosschainLegs(source, destination, terms)
  if (!legs) return undefined
  const feeBps = BigInt(bridgeProfileOf(terms.bridge).feeBps)
  if (terms.side === 'SELL') {
    const bridged = poolAmount(source, terms.srcToken, legs.sourceLegToken, amount, 'SELL')
    if (bridged === undefined) return undefined
    return poolAmount(destination, legs.bridgedOnDestination, legs.deliveredToken, (bridged * (10_000n - feeBps)) / 10_000n, 'SELL')
  }
  const arriving = poolAmount(destination, legs.bridgedOnDestination, legs.deliveredToken, amount, 'BUY')
  if (arriving === undefined) return undefined
  const bridged = (arriving * 10_000n + (10_000n - feeBps) - 1n) / (10_000n - feeBps)
  return poolAmount(source, terms.srcToken, legs.sourceLegToken, bridged, 'BUY')
}

/** Source `amount` → destination (SELL) or destination `amount` ← source (BUY) through the pools; native as wrapped. */
export function poolAmount(chain: ChainVenue, srcToken: Address, destToken: Address, amount: bigint, side: Side): bigint | undefined {
  const from = tradable(chain, srcToken)
  const to = tradable(chain, destToken)
  if (from.toLowerCase() === to.toLowerCase()) return amount
  const route = findBestRoute({ pools: chain.pools, srcToken: from, destToken: to, amount, side })
  if (!route) return undefined
  return side === 'SELL' ? route.destAmount : route.srcAmount
}

export type CrosschainLegs = {
  /** Token the source leg swaps into on the source chain (the order's destToken there). */
  sourceLegToken: Address
  /** The same asset on the destination chain. */
  bridgedOnDestination: Address
  /** Token the bridge hands to the beneficiary on the destination chain (may be the native placeholder). */
  deliveredToken: Address
}

/**
 * The tokens of a crosschain order: `destToken` names the asset on the source chain (as the real service's crosschain
 * orders do), or on the destination chain when the source chain does not know it; `bridge.outputToken` is what
 * arrives, or the destination chain's copy of destToken when it is zero.
 */
export function crosschainLegs(source: ChainVenue, destination: ChainVenue, terms: OrderTerms): CrosschainLegs | undefined {
  const symbol = symbolOf(source, terms.destToken) ?? symbolOf(destination, terms.destToken)
  if (!symbol) return undefined
  const sourceLegToken = isNative(terms.destToken) ? terms.destToken : source.tokenBySymbol(symbol)?.address
  const bridgedOnDestination = isNative(terms.destToken) ? nativeTokenPlaceholder : destination.tokenBySymbol(symbol)?.address
  if (!sourceLegToken || !bridgedOnDestination) return undefined
  const output = terms.bridge?.outputToken
  const deliveredToken = output && BigInt(output) !== 0n ? output : bridgedOnDestination
  if (!isNative(deliveredToken) && !destination.tokenByAddress(deliveredToken)) return undefined
  return { sourceLegToken, bridgedOnDestination, deliveredToken }
}

function symbolOf(chain: ChainVenue, token: Address): string | undefined {
  return isNative(token) ? chain.wrappedNative.symbol : chain.tokenByAddress(token)?.symbol
}

function tradable(chain: ChainVenue, token: Address): Address {
  return isNative(token) ? chain.wrappedNative.address : token
}
