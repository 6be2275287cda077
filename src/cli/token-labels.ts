import { erc20Abi, formatUnits, isAddress } from 'viem'
import type { ChainClients } from '../chain/chain-clients.js'
import { nativeTokenPlaceholder } from '../protocol/addresses.js'
import { tokenAddress, tokenCatalogue } from '../sandbox/chains/catalogue.js'

/** A token's symbol and decimals, and its raw amounts written in token units ("1.5"). */
export type TokenLabel = { symbol: string; decimals: number; format: (amount: bigint) => string }

/** Token labels keyed `chainId:address` (address lowercase; read them with labelOf). */
export type TokenLabels = ReadonlyMap<string, TokenLabel>

/** The key of a token in TokenLabels and in the journal summary's flows: `chainId:address`. */
export function tokenKey(chainId: number, address: string): string {
  return `${chainId}:${address.toLowerCase()}`
}

/** The label of `chainId:address` (any case), if known. */
export function labelOf(labels: TokenLabels, key: string): TokenLabel | undefined {
  return labels.get(key.toLowerCase())
}

/** `1.5 WETH` when the token is known, else the raw amount and the token's address. */
export function formatTokenAmount(labels: TokenLabels, key: string, amount: bigint): string {
  const label = labelOf(labels, key)
  if (label) return `${label.format(amount)} ${label.symbol}`
  const [, address = key] = key.split(':')
  return `${amount} raw units of ${address}`
}

/**
 * Labels for the tokens `keys` name (`chainId:address`): the native asset and the well-known tokens (WETH, USDC,
 * USDT, DAI, WBTC at their mainnet and Base addresses, and at the sandbox's addresses on its other chains) without a
 * call; any other token read from its chain (symbol(), decimals()) when `chains` has the chain. A token that cannot
 * be read stays unlabelled (shown in raw units).
 */
export async function labelTokens(keys: Iterable<string>, chains: ReadonlyMap<number, ChainClients> = new Map()): Promise<TokenLabels> {
  const labels = new Map<string, TokenLabel>()
  await Promise.all(
    [...new Set([...keys].map((key) => key.toLowerCase()))].map(async (key) => {
      const [chainText = '', address = ''] = key.split(':')
      const chainId = Number(chainText)
      if (!Number.isSafeInteger(chainId) || !isAddress(address, { strict: false })) return
      const known = knownToken(chainId, address)
      if (known) {
        labels.set(key, label(known.symbol, known.decimals))
        return
      }
      const client = chains.get(chainId)?.publicClient
      if (!client) return
      try {
        const [symbol, decimals] = await Promise.all([
          client.readContract({ address, abi: erc20Abi, functionName: 'symbol' }),
          client.readContract({ address, abi: erc20Abi, functionName: 'decimals' }),
        ])
        labels.set(key, label(symbol, decimals))
      } catch {
        // not a standard ERC-20, or the chain does not answer: shown in raw units
      }
    }),
  )
  return labels
}

/** Labels for every token of the summary's flows and recent fills (see labelTokens). */
export function readTokenLabels(
  summary: {
    strategies: readonly { net: Readonly<Record<string, string>> }[]
    recentFills: readonly { orderId: string; spentToken?: string | undefined; receivedToken?: string | undefined }[]
  },
  chains: ReadonlyMap<number, ChainClients>,
): Promise<TokenLabels> {
  const keys = [
    ...summary.strategies.flatMap((strategy) => Object.keys(strategy.net)),
    ...summary.recentFills.flatMap((fill) => [fill.spentToken, fill.receivedToken].filter((key) => key !== undefined)),
  ]
  return labelTokens(keys, chains)
}

/** Symbols and decimals every chain shares: the native asset, and the catalogue's tokens at their addresses. */
function knownToken(chainId: number, address: string): { symbol: string; decimals: number } | undefined {
  if (address === nativeTokenPlaceholder.toLowerCase()) return { symbol: 'ETH', decimals: 18 }
  return tokenCatalogue.find((spec) => tokenAddress(spec, chainId).toLowerCase() === address)
}

function label(symbol: string, decimals: number): TokenLabel {
  return { symbol, decimals, format: (amount) => formatUnits(amount, decimals) }
}
