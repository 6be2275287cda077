import type { BacktestFill } from './backtest-result.js'
import type { BacktestRun } from './run-backtest.js'
import type { SimulatedFill } from './simulated-venue.js'

/** A venue fill read in the pair's terms: whole tokens, values in the quote token at the run's last mid price. */
export type FillFigures = {
  /** The fill's tokens as `"chainId:token"` (lowercase), with the pair's symbol when they are one of its tokens. */
  spent: { key: string; symbol: string | undefined; decimals: number; amount: number; value: number }
  received: { key: string; symbol: string | undefined; decimals: number; amount: number; value: number }
  /** The model's fee, quote token. */
  fee: number
  /** A trade between the pair's tokens (BUY when base was received), with its price and slippage; null otherwise. */
  trade: BacktestFill | null
}

/**
 * Reads the fills of `run`. Token amounts are in whole tokens (decimals from the quote set; 18 when it never named the
 * token); base-token amounts are valued at the last mid price, tokens outside the pair at 0. A trade's price is
 * quote per base after fees; its slippage is against the price the order was planned at, positive when worse for the
 * trader.
 */
export function createFillReader(run: BacktestRun): (fill: SimulatedFill) => FillFigures {
  const { valuation } = run
  const endPrice = valuation.price() ?? 0
  const side = (chainId: number, token: string, amount: bigint) => {
    const key = `${chainId}:${token.toLowerCase()}`
    const decimals = run.decimalsOf(key) ?? 18
    const whole = Number(amount) / 10 ** decimals
    const base = valuation.isBase(key)
    const quote = valuation.isQuote(key)
    const symbol = base ? valuation.pair.base.symbol : quote ? valuation.pair.quote.symbol : undefined
    return { key, symbol, decimals, amount: whole, value: quote ? whole : base ? whole * endPrice : 0, base, quote }
  }
  return (fill) => {
    const { base: spentBase, quote: spentQuote, ...spent } = side(fill.chainId, fill.srcToken, fill.spent)
    const { base: receivedBase, quote: receivedQuote, ...received } = side(fill.destChainId, fill.destToken, fill.received)
    const fee = side(fill.destChainId, fill.destToken, fill.fee).value
    const buy = spentQuote && receivedBase
    const sell = spentBase && receivedQuote
    if (!buy && !sell) return { spent, received, fee, trade: null }
    const baseAmount = buy ? received.amount : spent.amount
    const quoteAmount = buy ? spent.amount : received.amount
    const price = baseAmount > 0 ? quoteAmount / baseAmount : 0
    // The planned price, in the same orientation: what the order was priced at before it went to the venue.
    const plannedSrc = Number(fill.planned.src) / 10 ** spent.decimals
    const plannedDest = Number(fill.planned.dest) / 10 ** received.decimals
    const planned = buy ? plannedSrc / plannedDest : plannedDest / plannedSrc
    const plannedPrice = planned > 0 && Number.isFinite(planned) ? planned : null
    const slippageBps =
      plannedPrice === null || !(price > 0) ? 0 : ((buy ? price - plannedPrice : plannedPrice - price) / plannedPrice) * 10_000
    const trade: BacktestFill = {
      t: fill.at,
      strategy: fill.strategy,
      orderId: fill.orderId,
      side: buy ? 'BUY' : 'SELL',
      price,
      plannedPrice,
      baseAmount,
      quoteAmount,
      slippageBps,
      mode: fill.mode,
      fee,
      gas: fill.gasUsd,
    }
    return { spent, received, fee, trade }
  }
}
