import type { Address } from 'viem'
import { UnknownTokenDecimalsError } from './feed-errors.js'

/** The decimals of a token on a chain; the price endpoints need them with every request. */
export type TokenDecimals = (chainId: number, token: Address) => number

/** TokenDecimals over a list of tokens (addresses compared case-insensitively); throws UnknownTokenDecimalsError otherwise. */
export function decimalsFromTokenList(tokens: readonly { chainId: number; address: Address; decimals: number }[]): TokenDecimals {
  const byKey = new Map(tokens.map((token) => [`${token.chainId}:${token.address.toLowerCase()}`, token.decimals]))
  return (chainId, token) => {
    const decimals = byKey.get(`${chainId}:${token.toLowerCase()}`)
    if (decimals === undefined) throw new UnknownTokenDecimalsError(chainId, token)
    return decimals
  }
}
