import type { Address } from 'viem'
import { getBlockNumber } from 'viem/actions'
import type { ChainClients } from '../chain/chain-clients.js'
import { readTokenBalance } from '../chain/token-flows.js'
import type { BalanceRequest, BalancesEvent } from '../strategy/strategy-events.js'
import { BotError } from './bot-errors.js'

/**
 * Reads the wallet's balance of every requested token, each chain at one block so that a strategy comparing chains
 * compares one moment of each. Requests naming the same token twice are read once.
 */
export async function readBalances(
  chains: ReadonlyMap<number, ChainClients>,
  account: Address,
  requests: readonly BalanceRequest[],
): Promise<BalancesEvent['balances']> {
  const byChain = new Map<number, Address[]>()
  for (const { chainId, token } of requests) {
    const tokens = byChain.get(chainId) ?? []
    if (!tokens.some((known) => known.toLowerCase() === token.toLowerCase())) tokens.push(token)
    byChain.set(chainId, tokens)
  }
  const perChain = await Promise.all(
    [...byChain].map(async ([chainId, tokens]) => {
      const client = chains.get(chainId)?.publicClient
      if (!client) {
        throw new BotError(`a strategy watches a balance on chain ${chainId}, which is not configured`, {
          details: { chainId, configured: [...chains.keys()].join(', ') },
          hint: 'add the chain (its RPC URL) to the config, or remove it from the strategy',
          errorClass: 'operational',
        })
      }
      const blockNumber = await getBlockNumber(client, { cacheTime: 0 })
      return Promise.all(
        tokens.map(async (token) => ({ chainId, token, amount: await readTokenBalance(client, account, token, blockNumber) })),
      )
    }),
  )
  return perChain.flat()
}
