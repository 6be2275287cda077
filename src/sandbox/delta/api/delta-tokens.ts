import type { Address } from 'viem'
import { nativeTokenPlaceholder, zeroAddress } from '../../../protocol/addresses.js'
import type { DeployedToken } from '../../chains/fixture.js'
import type { ChainVenue } from '../../venue/chain-venue.js'

/** A token of a Delta request: an ERC-20 of the chain or the native asset (priced and bridged as its wrapped form). */
export type DeltaToken = {
  native: boolean
  /** As routes write it: lowercase for an ERC-20, the native placeholder exactly as the caller spelled it. */
  wireAddress: string
  /** What a signed order carries: the token address, or the mixed-case native placeholder. */
  orderAddress: Address
  /** The pool token that prices it (WETH for the native asset). */
  pooled: DeployedToken
  decimals: number
}

/** The placeholder in any casing, or the zero address: spellings of the native asset that callers use. */
export function isNativeSpelling(address: string): boolean {
  const lower = address.toLowerCase()
  return lower === nativeTokenPlaceholder.toLowerCase() || lower === zeroAddress
}

/** Only the mixed-case placeholder is a valid native source for an order (section 7: `Invalid srcToken`). */
export function isValidNativeSpelling(address: string): boolean {
  return address === nativeTokenPlaceholder
}

export function resolveDeltaToken(chain: ChainVenue, address: string): DeltaToken | undefined {
  if (isNativeSpelling(address)) {
    const weth = chain.wrappedNative
    return { native: true, wireAddress: address, orderAddress: nativeTokenPlaceholder, pooled: weth, decimals: 18 }
  }
  const token = chain.tokenByAddress(address)
  if (!token) return undefined
  return { native: false, wireAddress: token.address.toLowerCase(), orderAddress: token.address, pooled: token, decimals: token.decimals }
}

/** The same asset on another chain (by symbol; the native asset stays native). */
export function counterpartToken(token: DeltaToken, chain: ChainVenue): DeltaToken | undefined {
  if (token.native) return resolveDeltaToken(chain, nativeTokenPlaceholder)
  const twin = chain.tokenBySymbol(token.pooled.symbol)
  return twin ? resolveDeltaToken(chain, twin.address) : undefined
}
