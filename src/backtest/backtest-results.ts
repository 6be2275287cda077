import { createHash } from 'node:crypto'
import type { BacktestFill, BacktestResult, BacktestStrategy } from './backtest-result.js'
import type { BacktestRun } from './run-backtest.js'
import type { SimulatedFill } from './simulated-venue.js'

export type ResultInputs = { config: string; quotes: string; seed: number }

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

const percentile = (sorted: readonly number[], p: number): number => {
  if (sorted.length === 0) return 0
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))
  return sorted[index] as number
}

/**
 * The run as people read it: amounts in whole tokens, values in the quote token at the replay's mid price. Fills
 * between the pair's tokens become trades (BUY when base was received); other fills (a crosschain transfer of the
 * quote token) count in their strategy's figures and fees, not as trades.
 */
export function backtestResultOf(run: BacktestRun, inputs: ResultInputs): BacktestResult {
  const { valuation, venue } = run
  const decimals = (chainId: number, token: string) => run.decimalsOf(`${chainId}:${token.toLowerCase()}`) ?? 18
  const endPrice = valuation.price() ?? 0
  const whole = (amount: bigint, chainId: number, token: string) => Number(amount) / 10 ** decimals(chainId, token)
  const valueIn = (amount: bigint, chainId: number, token: string): number => {
    const key = `${chainId}:${token.toLowerCase()}`
    if (valuation.isQuote(key)) return whole(amount, chainId, token)
    if (valuation.isBase(key)) return whole(amount, chainId, token) * endPrice
    return 0
  }

  const trades: BacktestFill[] = []
  const perStrategy = new Map<string, { fills: number; bought: number; sold: number; fees: number; gas: number; pnl: number }>()
  for (const fill of venue.fills()) {
    const figures = perStrategy.get(fill.strategy) ?? { fills: 0, bought: 0, sold: 0, fees: 0, gas: 0, pnl: 0 }
    perStrategy.set(fill.strategy, figures)
    const srcKey = `${fill.chainId}:${fill.srcToken.toLowerCase()}`
    const destKey = `${fill.destChainId}:${fill.destToken.toLowerCase()}`
    const fee = valueIn(fill.fee, fill.destChainId, fill.destToken)
    figures.fills += 1
    figures.fees += fee
    figures.gas += fill.gasUsd
    figures.pnl += valueIn(fill.received, fill.destChainId, fill.destToken) - valueIn(fill.spent, fill.chainId, fill.srcToken) - fill.gasUsd
    const buy = valuation.isQuote(srcKey) && valuation.isBase(destKey)
    const sell = valuation.isBase(srcKey) && valuation.isQuote(destKey)
    if (!buy && !sell) continue
    const baseAmount = buy ? whole(fill.received, fill.destChainId, fill.destToken) : whole(fill.spent, fill.chainId, fill.srcToken)
    const quoteAmount = buy ? whole(fill.spent, fill.chainId, fill.srcToken) : whole(fill.received, fill.destChainId, fill.destToken)
    if (buy) figures.bought += baseAmount
    else figures.sold += baseAmount
    if (!(baseAmount > 0 && quoteAmount > 0)) continue
    const price = quoteAmount / baseAmount
    // The planned price, in the same orientation: what the order was priced at before it went to the venue.
    const plannedSrc = whole(fill.planned.src, fill.chainId, fill.srcToken)
    const plannedDest = whole(fill.planned.dest, fill.destChainId, fill.destToken)
    const planned = buy ? plannedSrc / plannedDest : plannedDest / plannedSrc
    const slippageBps = planned > 0 && Number.isFinite(planned) ? ((buy ? price - planned : planned - price) / planned) * 10_000 : 0
    trades.push({
      t: fill.at,
      strategy: fill.strategy,
      orderId: fill.orderId,
      side: buy ? 'BUY' : 'SELL',
      price,
      baseAmount,
      quoteAmount,
      slippageBps,
      mode: fill.mode,
      fee,
      gas: fill.gasUsd,
    })
  }

  const points = valuation.points()
  const equity = points.map((point): [number, number] => [point.t, point.equity])
  const hold = points.map((point): [number, number] => [point.t, point.hold])
  const priceSeries = points.map((point): [number, number] => [point.t, point.price])
  const start = valuation.holdings(valuation.startBalances(), endPrice)
  const end = valuation.holdings(venue.balances(), endPrice)
  const startPrice = points[0]?.price ?? endPrice
  const startValue = valuation.holdings(valuation.startBalances(), startPrice).value
  const endValue = end.value + valuation.holdings(venue.inTransit(), endPrice).value - venue.gasUsd()
  const holdEndValue = start.value

  let peak = Number.NEGATIVE_INFINITY
  let peakAt = 0
  let maxDrawdown = 0
  let window: { from: number; to: number } | null = null
  for (const [t, value] of equity) {
    if (value > peak) {
      peak = value
      peakAt = t
    }
    const drawdown = peak > 0 ? (peak - value) / peak : 0
    if (drawdown > maxDrawdown) {
      maxDrawdown = drawdown
      window = { from: peakAt, to: t }
    }
  }

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
  const strategies: BacktestStrategy[] = run.strategies.map((strategy) => {
    const figures = perStrategy.get(strategy.name) ?? { fills: 0, bought: 0, sold: 0, fees: 0, gas: 0, pnl: 0 }
    return { name: strategy.name, orders: run.ordersByStrategy[strategy.name] ?? {}, ...figures, errors: strategy.stats().failures }
  })
  const fees = [...perStrategy.values()].reduce((sum, item) => sum + item.fees, 0)

  return {
    version: 1,
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
      holdEndValue,
      pnl: endValue - startValue,
      pnlVsHold: endValue - holdEndValue,
      executionPrice: baseTraded > 0 ? quoteTraded / baseTraded : null,
      averagePrice: valuation.averagePrice(),
      slippageBps:
        slippages.length === 0
          ? null
          : {
              mean: slippages.reduce((sum, value) => sum + value, 0) / slippages.length,
              p50: percentile(slippages, 50),
              p95: percentile(slippages, 95),
            },
      fees,
      gas: venue.gasUsd(),
      fillRate: orders === 0 ? 0 : Math.min(1, filledOrders / orders),
      ordersByStatus,
      maxDrawdown,
      maxDrawdownWindow: window,
      trades: trades.length,
      startHoldings: { base: start.base, quote: start.quote },
      endHoldings: { base: end.base, quote: end.quote },
      strategyErrors: strategies.reduce((sum, strategy) => sum + strategy.errors, 0),
    },
    series: { equity, hold, price: priceSeries },
    fills: trades,
    strategies,
    warnings: [...run.warnings, ...valuation.unvalued().map((key) => `balances of ${key} are not valued (not a token of the pair)`)],
  }
}
