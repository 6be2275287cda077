import { InvalidArgumentError } from 'commander'
import { type Address, getAddress, isAddress, parseUnits } from 'viem'
import { getTokens } from '../api/market/get-tokens.js'
import { requireChainClients } from '../chain/chain-clients.js'
import { detectTokenCapabilities } from '../chain/detect-token-capabilities.js'
import { BaseError } from '../errors/base.js'
import { nativeTokenPlaceholder } from '../protocol/addresses.js'
import type { Session } from '../runtime/open-session.js'

export type TradeToken = { chainId: number; address: Address; symbol: string; decimals: number; native: boolean }

export class UnknownTokenError extends BaseError {
  override name = 'UnknownTokenError'
}

/** A token named on the command line: ETH (the native asset), a symbol the venue lists, or an address. */
export async function resolveTradeToken(
  session: Pick<Session, 'api' | 'chains'>,
  chainId: number,
  name: string,
  flag: string,
): Promise<TradeToken> {
  if (name.toUpperCase() === 'ETH' || name.toLowerCase() === nativeTokenPlaceholder.toLowerCase()) {
    return { chainId, address: nativeTokenPlaceholder, symbol: 'ETH', decimals: 18, native: true }
  }
  if (isAddress(name, { strict: false })) {
    const { publicClient } = requireChainClients(session.chains, chainId)
    const token = await detectTokenCapabilities(publicClient, { token: getAddress(name) })
    return { chainId, address: token.address, symbol: token.symbol, decimals: token.decimals, native: false }
  }
  const listed = await getTokens(session.api, { network: chainId })
  const found = listed.find((token) => token.symbol.toUpperCase() === name.toUpperCase())
  if (!found) {
    throw new UnknownTokenError(`${flag} ${name}: no such token on chain ${chainId}`, {
      details: { known: listed.map((token) => token.symbol).join(', ') },
      hint: 'Use a listed symbol or the token address.',
      errorClass: 'operational',
    })
  }
  const native = found.address.toLowerCase() === nativeTokenPlaceholder.toLowerCase()
  return { chainId, address: native ? nativeTokenPlaceholder : found.address, symbol: found.symbol, decimals: found.decimals, native }
}

/** "1.5" in whole tokens → raw units; refuses more decimals than the token has. */
export function parseTradeAmount(value: string, token: TradeToken, flag = '--amount'): bigint {
  if (!/^\d+(\.\d+)?$/.test(value))
    throw new InvalidArgumentError(`${flag} expects a positive decimal number such as 1.5, received "${value}"`)
  const fraction = value.split('.')[1] ?? ''
  if (fraction.length > token.decimals) {
    throw new InvalidArgumentError(`${flag} ${value}: ${token.symbol} has ${token.decimals} decimals, the amount has ${fraction.length}`)
  }
  const raw = parseUnits(value, token.decimals)
  if (raw === 0n) throw new InvalidArgumentError(`${flag} must be above 0`)
  return raw
}
