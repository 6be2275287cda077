import { type Address, erc20Abi, formatUnits } from 'viem'
import type { ChainClients } from '../../chain/chain-clients.js'
import { nativeToken } from '../../chain/token-flows.js'

/** A token's symbol and decimals when the chain tells them; undefined when it does not (raw units are shown then). */
export type TokenLabel = { symbol: string; decimals: number }

/** Formats an amount of a token for a message: `1.5 USDC`, or raw units and a short address when its label is unknown. */
export type FormatTokenAmount = (chainId: number, token: string, amount: bigint) => Promise<string>

/**
 * Reads each token's symbol and decimals once per chain (ERC-20 `symbol()` and `decimals()`; the native token as its
 * chain's currency) and formats amounts with them. A read that fails leaves the amount in raw units.
 */
export function createTokenAmountFormatter(chains: ReadonlyMap<number, Pick<ChainClients, 'publicClient' | 'chain'>>): FormatTokenAmount {
  const labels = new Map<string, Promise<TokenLabel | undefined>>()

  async function readLabel(chainId: number, token: Address): Promise<TokenLabel | undefined> {
    const chain = chains.get(chainId)
    if (!chain) return undefined
    if (token.toLowerCase() === nativeToken) {
      const { symbol, decimals } = chain.chain.nativeCurrency
      return { symbol, decimals }
    }
    try {
      const [symbol, decimals] = await Promise.all([
        chain.publicClient.readContract({ address: token, abi: erc20Abi, functionName: 'symbol' }),
        chain.publicClient.readContract({ address: token, abi: erc20Abi, functionName: 'decimals' }),
      ])
      return { symbol: symbol.replace(/[^\w.+-]/g, '').slice(0, 16), decimals }
    } catch {
      labels.delete(`${chainId}:${token.toLowerCase()}`)
      return undefined
    }
  }

  return async (chainId, token, amount) => {
    const key = `${chainId}:${token.toLowerCase()}`
    let label = labels.get(key)
    if (!label) {
      label = readLabel(chainId, token as Address)
      labels.set(key, label)
    }
    const known = await label
    return known
      ? `${formatUnits(amount, known.decimals)} ${known.symbol}`
      : `${amount} (raw units of ${token.slice(0, 6)}…${token.slice(-4)})`
  }
}
