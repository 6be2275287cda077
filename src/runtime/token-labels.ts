import { type Address, erc20Abi, formatUnits } from 'viem'
import type { ChainClients } from '../chain/chain-clients.js'
import { nativeToken } from '../chain/token-flows.js'

/** A token's symbol and decimals as its chain tells them. */
export type TokenLabel = { symbol: string; decimals: number }

/** A token on a chain. */
export type TokenRef = { chainId: number; token: string }

/**
 * Symbols and decimals of the bot's tokens, read from their chains once each (ERC-20 `symbol()` and `decimals()`; the
 * native token as its chain's currency). The console and the notifications share one. A token whose read failed is
 * read again next time it is asked for; until then it has no label (its amounts stay in raw units).
 */
export type TokenLabels = {
  /** The label of one token, read from its chain the first time. */
  labelOf: (chainId: number, token: string) => Promise<TokenLabel | undefined>
  /** Reads the labels of these tokens (those not read yet), so that `known` answers for them. */
  read: (tokens: Iterable<TokenRef>) => Promise<void>
  /** The label read before, if any. */
  known: (chainId: number, token: string) => TokenLabel | undefined
}

/** Formats an amount of a token for a message: `1.5 USDC`, or raw units and a short address when its label is unknown. */
export type FormatTokenAmount = (chainId: number, token: string, amount: bigint) => Promise<string>

/** `0xa0b8…eb48`: how a token without a label is named. */
export function shortAddress(token: string): string {
  return `${token.slice(0, 6)}…${token.slice(-4)}`
}

export function createTokenLabels(chains: ReadonlyMap<number, Pick<ChainClients, 'publicClient' | 'chain'>>): TokenLabels {
  const reads = new Map<string, Promise<TokenLabel | undefined>>()
  const labels = new Map<string, TokenLabel>()
  const keyOf = (chainId: number, token: string) => `${chainId}:${token.toLowerCase()}`

  async function readLabel(chainId: number, token: Address, key: string): Promise<TokenLabel | undefined> {
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
      // A symbol is the token's own text: kept to a short word, nothing a message or a page could be tricked by.
      return { symbol: symbol.replace(/[^\w.+-]/g, '').slice(0, 16) || shortAddress(token), decimals }
    } catch {
      reads.delete(key)
      return undefined
    }
  }

  function labelOf(chainId: number, token: string): Promise<TokenLabel | undefined> {
    const key = keyOf(chainId, token)
    let read = reads.get(key)
    if (!read) {
      read = readLabel(chainId, token as Address, key).then((label) => {
        if (label) labels.set(key, label)
        return label
      })
      reads.set(key, read)
    }
    return read
  }

  return {
    labelOf,
    read: async (tokens) => {
      await Promise.all([...tokens].map(({ chainId, token }) => labelOf(chainId, token)))
    },
    known: (chainId, token) => labels.get(keyOf(chainId, token)),
  }
}

/** FormatTokenAmount over the bot's token labels. */
export function createTokenAmountFormatter(labels: TokenLabels): FormatTokenAmount {
  return async (chainId, token, amount) => {
    const known = await labels.labelOf(chainId, token)
    return known ? `${formatUnits(amount, known.decimals)} ${known.symbol}` : `${amount} (raw units of ${shortAddress(token)})`
  }
}
