import { type Address, erc20Abi } from 'viem'
import { nativeTokenPlaceholder } from '../protocol/addresses.js'
import type { ChainClients } from './chain-clients.js'

/** A token's decimals as its contract states them; 18 for the native placeholder. */
export async function readTokenDecimals(chain: ChainClients, token: Address): Promise<number> {
  if (token.toLowerCase() === nativeTokenPlaceholder.toLowerCase()) return 18
  return chain.publicClient.readContract({ address: token, abi: erc20Abi, functionName: 'decimals' })
}
