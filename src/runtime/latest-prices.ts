import type { Quote } from '../feed/quote.js'

/** The latest quote between two tokens: `srcAmount` of the one bought `destAmount` of the other, at `at` (clock ms). */
export type PairPrice = { srcAmount: bigint; destAmount: bigint; at: number }

/** A token on a chain. */
export type PricedToken = { chainId: number; token: string }

/** An amount valued in another token: its raw units, and the clock ms of the quote it took (null: the same token). */
export type Valuation = { value: bigint; pricedAt: number | null }

/**
 * The latest price the bot has seen for each pair of tokens, from the quotes its feed hands the strategies (no call of
 * its own). Each quote is its pair's price at its size and side, fees and slippage included, as the venue quoted it.
 */
export type LatestPrices = {
  observe: (quote: Quote) => void
  /** `amount` of `from` in units of `to`, at the latest quote between the two (either direction); undefined if none. */
  value: (from: PricedToken, amount: bigint, to: PricedToken) => Valuation | undefined
}

const keyOf = ({ chainId, token }: PricedToken) => `${chainId}:${token.toLowerCase()}`

export function createLatestPrices(): LatestPrices {
  const prices = new Map<string, PairPrice>()
  return {
    observe: (quote) => {
      const { request, srcAmount, destAmount, receivedAt } = quote
      if (srcAmount <= 0n || destAmount <= 0n) return
      const src = keyOf({ chainId: request.chainId, token: request.srcToken })
      const dest = keyOf({ chainId: request.destChainId ?? request.chainId, token: request.destToken })
      const latest = prices.get(`${src}>${dest}`)
      if (latest && latest.at > receivedAt) return
      prices.set(`${src}>${dest}`, { srcAmount, destAmount, at: receivedAt })
    },
    value: (from, amount, to) => {
      const fromKey = keyOf(from)
      const toKey = keyOf(to)
      if (fromKey === toKey) return { value: amount, pricedAt: null }
      const forward = prices.get(`${fromKey}>${toKey}`)
      const backward = prices.get(`${toKey}>${fromKey}`)
      // The newer of the two directions: a sell of `from` for `to`, or of `to` for `from` read backwards.
      if (forward && (!backward || forward.at >= backward.at)) {
        return { value: (amount * forward.destAmount) / forward.srcAmount, pricedAt: forward.at }
      }
      if (backward) return { value: (amount * backward.srcAmount) / backward.destAmount, pricedAt: backward.at }
      return undefined
    },
  }
}
