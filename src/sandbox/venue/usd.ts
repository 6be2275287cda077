import { type Address, formatUnits } from 'viem'
import { findBestRoute, spotAmount } from '../market/route-finder.js'
import type { ChainVenue } from './chain-venue.js'

/** USD per whole token at the pools' marginal prices, measured against USDC (taken at par); 0 when unpriceable. */
export function usdPerToken(chain: ChainVenue, tokenAddress: Address): number {
  const usdc = chain.tokenBySymbol('USDC')
  const token = chain.tokenByAddress(tokenAddress)
  if (!usdc || !token) return 0
  if (token.address === usdc.address) return 1
  const unit = 10n ** BigInt(token.decimals)
  const route = findBestRoute({
    pools: chain.pools,
    srcToken: token.address,
    destToken: usdc.address,
    amount: unit / 1000n || 1n,
    side: 'SELL',
  })
  if (!route) return 0
  return Number(formatUnits(spotAmount(route) * 1000n, usdc.decimals))
}

/** A raw amount's USD value as the API writes it (a decimal string). */
export function formatAmountUsd(chain: ChainVenue, tokenAddress: Address, amount: bigint): string {
  const token = chain.tokenByAddress(tokenAddress)
  if (!token) return '0'
  const value = usdPerToken(chain, tokenAddress) * Number(formatUnits(amount, token.decimals))
  return value.toFixed(6)
}
