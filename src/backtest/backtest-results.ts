import { createHash } from 'node:crypto'
import { mean, quantileSorted } from 'simple-statistics'
import type { BacktestFill, BacktestResult, BacktestStrategy, SeriesPoint } from './backtest-result.js'
import { type DayFill, dailyTableOf } from './daily-table.js'
import { createFillReader } from './fill-figures.js'
import { backtestMetricsOf, drawdownSeriesOf, totalReturnOf } from './metrics.js'
import { roundTripProfitsOf, summarizeRoundTrips } from './round-trips.js'
import type { BacktestRun } from './run-backtest.js'
import type { SimulatedFill } from './simulated-venue.js'

export type ResultInputs = {
  config: string
  quotes: string
  seed: number
  /** Annual risk-free rate for Sharpe and Sortino (backtest.metrics.riskFreeRate); 0 by default. */
  riskFreeRate?: number | undefined
}

/**
 * The hash of a run's trades: every fill's time, order, tokens and raw amounts, in order. Two runs on the same quotes,
 * config and seed print the same digest; any difference in what was traded changes it.
 */
export function tradesHashOf(fills: readonly SimulatedFill[]): string {
  const hash = createHash('sha256')
  for (const fill of fills) {
    hash.update(
      `${fill.at}|${fill.orderId}|${fill.chainId}|${fill.destChainId}|${fill.srcToken.toLowerCase()}|${fill.destToken.toLowerCase()}|${fill.spent}|${fill.received}|${fill.fee}|${fill.gasUsd}\n`,
    )
  }
  return hash.digest('hex')
}

type StrategyFigures = { fills: number; bought: number; sold: number; fees: number; gas: number; pnl: number }

/**
 * The run as people read it: amounts in whole tokens, values in the quote token at the replay's mid price. Fills
 * between the pair's tokens become trades (BUY when base was received); other fills (a crosschain transfer of the
 * quote token) count in their strategy's figures, fees, volume and days, not as trades. The strategy is measured
 * against two benchmarks (buy-and-hold and the starting balances kept) and summed up in the metrics (metrics.ts).
 */
export function backtestResultOf(run: BacktestRun, inputs: ResultInputs): BacktestResult {
  const { valuation, venue } = run
  const endPrice = valuation.price() ?? 0
  const read = createFillReader(run)
  const trades: BacktestFill[] = []
  const days: DayFill[] = []
  let volume = 0
  const perStrategy = new Map<string, StrategyFigures>()
  for (const fill of venue.fills()) {
    const figures = perStrategy.get(fill.strategy) ?? { fills: 0, bought: 0, sold: 0, fees: 0, gas: 0, pnl: 0 }
    perStrategy.set(fill.strategy, figures)
    const { spent, received, fee, trade } = read(fill)
    figures.fills += 1
    figures.fees += fee
    figures.gas += fill.gasUsd
    figures.pnl += received.value - spent.value - fill.gasUsd
    // volume: the quote-token side of a trade, the value of what any other fill (a transfer) spent
    volume += trade ? trade.quoteAmount : spent.value
    const traded = trade !== null && trade.baseAmount > 0 && trade.quoteAmount > 0
    days.push({ t: fill.at, trade: traded, fee, gas: fill.gasUsd })
    if (!trade) continue
    if (trade.side === 'BUY') figures.bought += trade.baseAmount
    else figures.sold += trade.baseAmount
    if (traded) trades.push(trade)
  }

  const points = valuation.points()
  const series = (pick: (point: (typeof points)[number]) => number) => points.map((point): SeriesPoint => [point.t, pick(point)])
  const equity = series((point) => point.equity)
  const priceSeries = series((point) => point.price)
  const start = valuation.holdings(valuation.startBalances(), endPrice)
  const end = valuation.holdings(venue.balances(), endPrice)
  const startPrice = points[0]?.price ?? endPrice
  const startValue = valuation.holdings(valuation.startBalances(), startPrice).value
  const endValue = end.value + valuation.holdings(venue.inTransit(), endPrice).value - venue.gasUsd()
  const benchmark = (benchmarkEnd: number) => ({
    endValue: benchmarkEnd,
    return: totalReturnOf(startValue, benchmarkEnd),
    excess: endValue - benchmarkEnd,
  })
  const buyAndHoldEnd = (valuation.buyAndHoldStart()?.units ?? 0) * endPrice

  const slippages = trades.map((trade) => trade.slippageBps).sort((a, b) => a - b)
  const baseTraded = trades.reduce((sum, trade) => sum + trade.baseAmount, 0)
  const quoteTraded = trades.reduce((sum, trade) => sum + trade.quoteAmount, 0)
  const ordersByStatus: Record<string, number> = {}
  let orders = 0
  for (const counts of Object.values(run.ordersByStrategy)) {
    for (const [status, count] of Object.entries(counts)) {
      ordersByStatus[status] = (ordersByStatus[status] ?? 0) + count
      orders += count
    }
  }
  const filledOrders = new Set(venue.fills().map((fill) => fill.orderId)).size
  const allProfits: number[] = []
  const strategies: BacktestStrategy[] = run.strategies.map((strategy) => {
    const figures = perStrategy.get(strategy.name) ?? { fills: 0, bought: 0, sold: 0, fees: 0, gas: 0, pnl: 0 }
    const profits = roundTripProfitsOf(trades.filter((trade) => trade.strategy === strategy.name))
    allProfits.push(...profits)
    return {
      name: strategy.name,
      orders: run.ordersByStrategy[strategy.name] ?? {},
      ...figures,
      errors: strategy.stats().failures,
      roundTrips: summarizeRoundTrips(profits),
    }
  })
  const fees = [...perStrategy.values()].reduce((sum, item) => sum + item.fees, 0)
  const gas = venue.gasUsd()

  return {
    version: 2,
    config: inputs.config,
    quotes: inputs.quotes,
    seed: inputs.seed,
    from: run.from,
    to: run.to,
    pair: { base: valuation.pair.base.symbol, quote: valuation.pair.quote.symbol },
    tradesHash: tradesHashOf(venue.fills()),
    summary: {
      startValue,
      endValue,
      pnl: endValue - startValue,
      benchmarks: { buyAndHold: benchmark(buyAndHoldEnd), holdStart: benchmark(start.value) },
      executionPrice: baseTraded > 0 ? quoteTraded / baseTraded : null,
      averagePrice: valuation.averagePrice(),
      slippageBps:
        slippages.length === 0
          ? null
          : { mean: mean(slippages), p50: quantileSorted(slippages, 0.5), p95: quantileSorted(slippages, 0.95) },
      fees,
      gas,
      fillRate: orders === 0 ? 0 : Math.min(1, filledOrders / orders),
      ordersByStatus,
      trades: trades.length,
      startHoldings: { base: start.base, quote: start.quote },
      endHoldings: { base: end.base, quote: end.quote },
      strategyErrors: strategies.reduce((sum, strategy) => sum + strategy.errors, 0),
      fillModel: run.fillModel,
      metrics: backtestMetricsOf({
        equity,
        price: priceSeries,
        exposure: points,
        startValue,
        endValue,
        riskFreeRate: inputs.riskFreeRate ?? 0,
        fees,
        gas,
        volume,
        roundTrips: summarizeRoundTrips(allProfits),
      }),
    },
    series: {
      equity,
      buyAndHold: series((point) => point.buyAndHold),
      holdStart: series((point) => point.holdStart),
      price: priceSeries,
      drawdown: drawdownSeriesOf(equity),
    },
    daily: dailyTableOf(equity, days),
    fills: trades,
    strategies,
    warnings: [...run.warnings, ...valuation.unvalued().map((key) => `balances of ${key} are not valued (not a token of the pair)`)],
  }
}
