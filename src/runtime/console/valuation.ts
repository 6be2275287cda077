import type { PricedToken } from '../latest-prices.js'
import { botTokensOf } from './balance-cache.js'
import type { ConsoleSources } from './console-sources.js'
import type { TokenView } from './token-view.js'
import { tokenViewOf } from './token-view.js'

/** Symbols taken as the valuation token when ops.valuation.token is not set, in this order of preference. */
export const stablecoinSymbols = ['USDC', 'USDT', 'DAI'] as const

/** Amounts (raw units) valued together: their sum in the valuation token, the oldest price taken, the tokens without one. */
export type ValuedAmounts = { raw: bigint; pricedAt: number | null; unpriced: PricedToken[] }

export type Valuation = {
  /** The valuation token (ops.valuation.token, else the strategies' first stablecoin), or why there is none. */
  token: () => Promise<{ token: PricedToken } | { reason: string }>
  /** `amounts` in `token` at the latest prices the bot has seen. */
  value: (amounts: readonly (PricedToken & { amount: bigint })[], token: PricedToken) => ValuedAmounts
  /** Why `valued` has no total: its tokens without a price, named. */
  unpricedReason: (valued: ValuedAmounts, token: PricedToken) => string
}

export function createValuation(
  sources: Pick<ConsoleSources, 'config' | 'labels' | 'prices' | 'chains' | 'strategies' | 'journal'>,
): Valuation {
  const { config, labels, prices } = sources
  const view: TokenView = tokenViewOf(labels)
  let chosen: PricedToken | undefined

  const named = (token: PricedToken) => view.labelOf(token.chainId, token.token).name

  return {
    token: async () => {
      if (chosen) return { token: chosen }
      const configured = config.ops.valuation.token
      if (configured !== undefined) {
        const [chainId = '', token = ''] = configured.split(':')
        chosen = { chainId: Number(chainId), token }
        await labels.read([chosen])
        return { token: chosen }
      }
      const tokens = botTokensOf(sources)
      await labels.read(tokens)
      for (const symbol of stablecoinSymbols) {
        const found = tokens.find((token) => labels.known(token.chainId, token.token)?.symbol.toUpperCase() === symbol)
        if (found) {
          chosen = found
          return { token: chosen }
        }
      }
      return {
        reason: `no valuation token: set ops.valuation.token ("chainId:address"); none of the strategies' tokens (${
          tokens.map(named).join(', ') || 'none'
        }) is ${stablecoinSymbols.join(', ')}`,
      }
    },
    value: (amounts, token) => {
      const valued: ValuedAmounts = { raw: 0n, pricedAt: null, unpriced: [] }
      for (const amount of amounts) {
        if (amount.amount === 0n) continue
        const priced = prices.value(amount, amount.amount, token)
        if (!priced) {
          valued.unpriced.push({ chainId: amount.chainId, token: amount.token })
          continue
        }
        valued.raw += priced.value
        if (priced.pricedAt !== null) valued.pricedAt = Math.min(valued.pricedAt ?? priced.pricedAt, priced.pricedAt)
      }
      return valued
    },
    unpricedReason: (valued, token) =>
      `no price seen yet between ${valued.unpriced.map(named).join(', ')} and ${named(token)} (the bot values tokens at the quotes its strategies subscribe to)`,
  }
}
