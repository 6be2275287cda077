import { basename } from 'node:path'
import type { BacktestResult } from '../backtest/backtest-result.js'
import { minimumAnnualisedMs } from '../backtest/metrics.js'

// The terminal summary of a backtest: the comparison with buy-and-hold first, then the key metrics, trades, orders,
// strategies and warnings (src/backtest/README.md, "Results").

const percent = (value: number, decimals = 2) => `${value >= 0 ? '+' : '-'}${Math.abs(value * 100).toFixed(decimals)} %`
const unsigned = (value: number, decimals = 2) => `${(value * 100).toFixed(decimals)} %`
const ratio = (value: number | null) => (value === null ? '-' : value.toFixed(2))
/** One decimal, without a "-0.0" for a value that rounds to zero. */
const bps = (value: number) => (Math.abs(value) < 0.05 ? 0 : value).toFixed(1)
const periodLabels = { minute: 'one-minute', hour: 'hourly', day: 'daily' } as const
const time = (t: number) => new Date(t).toISOString().replace('.000Z', 'Z')

/** `2 d 3 h`, `5 h 20 min`, `12 min`, `40 s`. */
function duration(ms: number): string {
  const minutes = Math.round(ms / 60_000)
  if (minutes < 1) return `${Math.round(ms / 1000)} s`
  const days = Math.floor(minutes / 1440)
  const hours = Math.floor((minutes % 1440) / 60)
  if (days > 0) return `${days} d${hours > 0 ? ` ${hours} h` : ''}`
  return hours > 0 ? `${hours} h${minutes % 60 > 0 ? ` ${minutes % 60} min` : ''}` : `${minutes} min`
}

/** "beat X by 1.00 USDC" / "lagged X by 1.00 USDC" / "matched X", to the cent of the quote token. */
function against(excess: number, name: string, money: (value: number) => string): string {
  if (Math.abs(excess) < 0.005) return `matched ${name}`
  return `${excess > 0 ? 'beat' : 'lagged'} ${name} by ${money(Math.abs(excess))}`
}

/** The result as the terminal shows it, one line per topic; `parameters`: a sweep combination's, shown first. */
export function formatBacktestSummary(result: BacktestResult, parameters: Record<string, unknown>): string {
  const { summary, pair } = result
  const { metrics } = summary
  const { buyAndHold, holdStart } = summary.benchmarks
  const money = (value: number) => `${value >= 0 ? '' : '-'}${Math.abs(value).toFixed(2)} ${pair.quote}`
  const window = metrics.maxDrawdownWindow
  const drawdown =
    metrics.maxDrawdown > 0 && window
      ? `max drawdown ${unsigned(metrics.maxDrawdown)} (peak ${time(window.from)}, trough ${time(window.to)}, ${
          window.recoveredAt === null ? 'not recovered' : `recovered ${time(window.recoveredAt)}`
        }); longest under water ${duration(metrics.maxDrawdownDurationMs)}`
      : 'no drawdown'
  const { returns } = metrics
  const share = (value: number | null) => (value === null ? '-' : unsigned(value, 3))
  const trips = metrics.roundTrips
  const lines = [
    `${Object.keys(parameters).length > 0 ? `${JSON.stringify(parameters)} ` : ''}${basename(result.config)} on ${basename(result.quotes)}: ${new Date(result.from).toISOString()} → ${new Date(result.to).toISOString()} (${summary.fillModel} fills)`,
    `  ${against(buyAndHold.excess, 'buy-and-hold', money)}: value ${money(summary.startValue)} → ${money(summary.endValue)} (${percent(metrics.totalReturn)}), buy-and-hold → ${money(buyAndHold.endValue)} (${percent(buyAndHold.return)})`,
    `  ${against(holdStart.excess, 'holding the starting balances', money)}: they end at ${money(holdStart.endValue)} (${percent(holdStart.return)}); PnL ${money(summary.pnl)}`,
    `  return ${percent(metrics.totalReturn)}, CAGR ${metrics.cagr !== null ? percent(metrics.cagr) : result.to - result.from < minimumAnnualisedMs ? '- (under 30 days)' : '-'}; market ${metrics.marketChange === null ? '-' : percent(metrics.marketChange)}`,
    `  Sharpe ${ratio(metrics.sharpe)}, Sortino ${ratio(metrics.sortino)}, Calmar ${ratio(metrics.calmar)} (${returns.count} ${periodLabels[returns.period]} returns, annualised × √${Math.round(returns.periodsPerYear)}, risk-free ${unsigned(returns.riskFreeRate)} a year); volatility ${metrics.volatility === null ? '-' : `${unsigned(metrics.volatility)} a year`}`,
    `  ${drawdown}`,
    `  exposure ${unsigned(metrics.exposure, 1)} of the time; fees ${money(summary.fees)} (${share(metrics.feesShareOfVolume)} of volume), gas ${money(summary.gas)} (${share(metrics.gasShareOfVolume)})`,
    `  trades ${summary.trades}; execution price ${summary.executionPrice?.toFixed(4) ?? '-'} vs average ${summary.averagePrice?.toFixed(4) ?? '-'} ${pair.quote}/${pair.base}`,
    `  slippage ${summary.slippageBps ? `mean ${bps(summary.slippageBps.mean)} bps, p95 ${bps(summary.slippageBps.p95)} bps` : '-'}; fill rate ${unsigned(summary.fillRate, 1)}`,
    ...(trips
      ? [
          `  round trips ${trips.trades}: win rate ${unsigned(trips.winRate, 1)}, average win ${money(trips.averageWin)}, average loss ${money(trips.averageLoss)}, profit factor ${ratio(trips.profitFactor)}, expectancy ${money(trips.expectancy)}`,
        ]
      : []),
    `  orders ${
      Object.entries(summary.ordersByStatus)
        .map(([status, count]) => `${status} ${count}`)
        .join(', ') || 'none'
    }`,
    ...result.strategies.map(
      (strategy) =>
        `  ${strategy.name}: ${strategy.fills} fills, bought ${strategy.bought.toFixed(6)} sold ${strategy.sold.toFixed(6)} ${pair.base}, PnL ${money(strategy.pnl)}${
          strategy.roundTrips ? `, ${strategy.roundTrips.trades} round trips (win rate ${unsigned(strategy.roundTrips.winRate, 1)})` : ''
        }${strategy.errors > 0 ? `, ${strategy.errors} errors` : ''}`,
    ),
    ...result.warnings.map((warning) => `  warning: ${warning}`),
    `  trades hash ${result.tradesHash}`,
  ]
  return lines.join('\n')
}
