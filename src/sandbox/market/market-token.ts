import { type Address, getAddress } from 'viem'
import { nativeTokenPlaceholder, zeroAddress } from '../../protocol/addresses.js'
import { ApiError } from '../server/api-error.js'
import type { ChainVenue } from '../venue/chain-venue.js'
import { marketErrors } from './market-errors.js'

/** The native asset as the service writes it in responses: all lowercase. */
export const nativeTokenWire = nativeTokenPlaceholder.toLowerCase() as Address

/** Symbol of the native asset in GET /tokens and in symbol look-ups. */
export const nativeSymbol = 'ETH'

/** A token of a Market request, resolved on one chain. */
export type MarketToken = {
  /** As responses write it: lowercase address, the native asset as lowercase 0xeeee…. */
  wire: Address
  /** The ERC-20 the pools hold (lowercase): the wrapped native for the native asset. */
  poolToken: Address
  /** As the router takes it: checksummed, the native asset as the mixed-case placeholder. */
  callAddress: Address
  symbol: string
  decimals: number
  native: boolean
}

export type TokenRole = 'src' | 'dest'

const addressPattern = /^0x[0-9a-fA-F]{40}$/

/** A token by address or symbol; the native asset only as the exact mixed-case placeholder or the symbol ETH. */
export function resolveMarketToken(chain: ChainVenue, value: string, role: TokenRole): MarketToken {
  const field = `${role}Token`
  if (addressPattern.test(value)) {
    const lower = value.toLowerCase()
    if (lower === nativeTokenWire) {
      if (value !== nativeTokenPlaceholder) {
        throw invalidToken(role, `${field} ${value}: native ETH must be sent as the mixed-case placeholder ${nativeTokenPlaceholder}`)
      }
      return nativeToken(chain)
    }
    if (lower === zeroAddress) {
      throw invalidToken(role, `${field} ${value} is the zero address; native ETH is the placeholder ${nativeTokenPlaceholder}`)
    }
    const token = chain.tokenByAddress(lower)
    if (!token) throw tokenNotSupported(chain, `${field} ${value}`)
    return erc20Token(token.address, token.symbol, token.decimals)
  }
  if (value.toUpperCase() === nativeSymbol) return nativeToken(chain)
  const token = chain.tokenBySymbol(value)
  if (!token) throw tokenNotSupported(chain, `${field} "${value}"`)
  return erc20Token(token.address, token.symbol, token.decimals)
}

/**
 * Checks `srcDecimals` / `destDecimals` of a token the chain lists: optional (the sandbox fills in the token's own, as
 * the service does for tokens it knows), and equal to the token's decimals when sent.
 */
export function checkTokenDecimals(token: MarketToken, given: number | undefined, role: TokenRole): void {
  if (given === undefined || given === token.decimals) return
  throw new ApiError(marketErrors.invalidDecimals, {
    message: `Invalid decimals: ${role}Decimals is ${given} but ${token.symbol} has ${token.decimals}`,
  })
}

/**
 * A token address the chain does not list cannot be priced without its decimals: that refusal names the missing
 * parameter first (with the decimals sent, the token is refused as not supported).
 */
export function requireDecimalsOfUnlisted(chain: ChainVenue, value: string, given: number | undefined, role: TokenRole): void {
  if (given !== undefined || !addressPattern.test(value)) return
  const lower = value.toLowerCase()
  if (lower === nativeTokenWire || lower === zeroAddress || chain.tokenByAddress(lower)) return
  throw new ApiError(marketErrors.invalidDecimals, {
    message: `Invalid decimals: ${role}Decimals is required for ${role}Token ${value}, which network ${chain.chainId} does not list (GET /tokens/${chain.chainId}); send the token's decimals`,
  })
}

function nativeToken(chain: ChainVenue): MarketToken {
  return {
    wire: nativeTokenWire,
    poolToken: chain.wrappedNative.address.toLowerCase() as Address,
    callAddress: nativeTokenPlaceholder,
    symbol: nativeSymbol,
    decimals: 18,
    native: true,
  }
}

function erc20Token(address: Address, symbol: string, decimals: number): MarketToken {
  const lower = address.toLowerCase() as Address
  return { wire: lower, poolToken: lower, callAddress: getAddress(address), symbol, decimals, native: false }
}

function invalidToken(role: TokenRole, detail: string): ApiError {
  const spec = role === 'src' ? marketErrors.invalidSrcToken : marketErrors.invalidDestToken
  return new ApiError(spec, { message: `${spec.message}: ${detail}` })
}

function tokenNotSupported(chain: ChainVenue, what: string): ApiError {
  const listed = [nativeSymbol, ...chain.tokens.map((token) => token.symbol)].join(', ')
  return new ApiError(marketErrors.tokenNotSupported, {
    message: `Token not supported: ${what} is not listed on network ${chain.chainId} (listed: ${listed}; GET /tokens/${chain.chainId})`,
  })
}
