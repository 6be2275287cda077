import { mean } from 'simple-statistics'
import type { RoundTrips } from './backtest-result.js'

/** A trade of one strategy as round trips read it: amounts after fees, in whole tokens; gas in the quote token. */
export type RoundTripFill = { side: 'BUY' | 'SELL'; baseAmount: number; quoteAmount: number; gas: number }

type Lot = { side: 'BUY' | 'SELL'; base: number; size: number; quotePerBase: number; gasPerBase: number }

/** What is left of a lot below this share of its size is rounding of the float amounts, not a position. */
const dust = 1e-9

/**
 * Profit of each round trip of one strategy's trades, in time order, quote token: a trade closes the open lots of the
 * other side first-in first-out, and each lot it closes (wholly or in part) is one trip. For a matched amount q of
 * base, profit = q × (sell price − buy price) − the gas of both trades pro rata to q. Prices come from the amounts,
 * which are after fees, so the profit is net of fees and gas. What no earlier trade closes opens a lot of its own side
 * (a sell first opens a short, which a later buy closes).
 */
export function roundTripProfitsOf(fills: readonly RoundTripFill[]): number[] {
  const open: Lot[] = []
  const profits: number[] = []
  for (const fill of fills) {
    if (!(fill.baseAmount > 0)) continue
    const quotePerBase = fill.quoteAmount / fill.baseAmount
    const gasPerBase = fill.gas / fill.baseAmount
    let remaining = fill.baseAmount
    while (remaining > fill.baseAmount * dust) {
      const lot = open[0]
      if (!lot || lot.side === fill.side) break
      const matched = Math.min(lot.base, remaining)
      const [bought, sold] = fill.side === 'SELL' ? [lot.quotePerBase, quotePerBase] : [quotePerBase, lot.quotePerBase]
      profits.push(matched * (sold - bought) - matched * (lot.gasPerBase + gasPerBase))
      lot.base -= matched
      remaining -= matched
      if (lot.base <= lot.size * dust) open.shift()
    }
    if (remaining > fill.baseAmount * dust) open.push({ side: fill.side, base: remaining, size: remaining, quotePerBase, gasPerBase })
  }
  return profits
}

/**
 * Trips, wins (profit above 0), losses (below 0), win rate (wins / trips), the mean win and the mean loss (as a
 * positive number), profit factor (gross profit / gross loss, null without a loss) and expectancy (the mean profit per
 * trip: winRate × averageWin − lossRate × averageLoss). Null without a trip.
 */
export function summarizeRoundTrips(profits: readonly number[]): RoundTrips | null {
  if (profits.length === 0) return null
  const wins = profits.filter((profit) => profit > 0)
  const losses = profits.filter((profit) => profit < 0).map((profit) => -profit)
  const grossProfit = wins.reduce((sum, profit) => sum + profit, 0)
  const grossLoss = losses.reduce((sum, loss) => sum + loss, 0)
  const profitFactor = grossProfit / grossLoss
  return {
    trades: profits.length,
    wins: wins.length,
    losses: losses.length,
    winRate: wins.length / profits.length,
    averageWin: wins.length > 0 ? mean(wins) : 0,
    averageLoss: losses.length > 0 ? mean(losses) : 0,
    profitFactor: losses.length > 0 && Number.isFinite(profitFactor) ? profitFactor : null,
    expectancy: mean(profits),
  }
}
