import { type Address, erc20Abi, formatUnits } from 'viem'
import type { ChainClients } from '../chain/chain-clients.js'
import { nativeToken } from '../chain/token-flows.js'
import type { JournalSummary } from '../journal/journal-summary.js'
import type { TokenLabels } from './journal-summary.js'

/** Reads the symbol and decimals of every token in the summary's flows from its chain; a token that fails is left raw. */
export async function readTokenLabels(summary: JournalSummary, chains: ReadonlyMap<number, ChainClients>): Promise<TokenLabels> {
  const keys = new Set(summary.strategies.flatMap((strategy) => Object.keys(strategy.net)))
  const labels = new Map<string, { symbol: string; format: (amount: bigint) => string }>()
  await Promise.all(
    [...keys].map(async (key) => {
      const [chainId, address] = key.split(':') as [string, Address]
      if (address === nativeToken) {
        labels.set(key, { symbol: 'ETH', format: (amount) => formatUnits(amount, 18) })
        return
      }
      const client = chains.get(Number(chainId))?.publicClient
      if (!client) return
      try {
        const [symbol, decimals] = await Promise.all([
          client.readContract({ address, abi: erc20Abi, functionName: 'symbol' }),
          client.readContract({ address, abi: erc20Abi, functionName: 'decimals' }),
        ])
        labels.set(key, { symbol, format: (amount) => formatUnits(amount, decimals) })
      } catch {
        // not a standard ERC-20: shown in raw units
      }
    }),
  )
  return labels
}
