import type { BacktestResult } from './backtest-result.js'
import { dayMs, minimumAnnualisedMs } from './metrics.js'
import {
  escapeHtml,
  formatAmount,
  formatDuration,
  formatPercent,
  formatPrice,
  formatRatio,
  formatReturn,
  formatTime,
  signClass,
} from './report-format.js'
import { type Figure, figureRow, noRoundTrip, roundTripFigures } from './report-tables.js'

// The report's metrics table: returns against the market and the benchmarks, risk-adjusted ratios (saying how they
// were computed), the maximum drawdown with its dates, exposure, costs against volume, and round trips. A figure the
// run cannot give shows as a dash whose tooltip says why.

const periodWords = { minute: 'one-minute', hour: 'hourly', day: 'daily' } as const

/** Why a run has no CAGR, in the order metrics.ts checks. */
function noGrowthRate(result: BacktestResult): string {
  const { equity } = result.series
  const first = equity[0]
  const last = equity[equity.length - 1]
  const duration = first && last ? last[0] - first[0] : 0
  if (duration < minimumAnnualisedMs) {
    return `The run lasts ${formatDuration(duration)}, under ${formatDuration(minimumAnnualisedMs)}: raised to a year, its return would say little.`
  }
  if (!(result.summary.startValue > 0) || !(result.summary.endValue > 0)) return 'The start or the end value is not positive.'
  return 'Too large to compute (it overflows).'
}

function groupRow(title: string): string {
  return `<tr><th scope="rowgroup" colspan="3" class="group">${escapeHtml(title)}</th></tr>`
}

/** The metrics of the run, in groups: return, risk, trading, round trips. */
export function metricsTable(result: BacktestResult, decimals: number): string {
  const { summary, pair } = result
  const { metrics } = summary
  const { returns } = metrics
  const quote = pair.quote
  const duration = result.to - result.from
  const returnsText = `${formatAmount(returns.count, 0)} ${periodWords[returns.period]} returns, ${formatAmount(returns.periodsPerYear, 0)} periods a year, risk-free rate ${formatPercent(returns.riskFreeRate)} a year`
  const tooFewReturns =
    returns.count < 2
      ? `Only ${formatAmount(returns.count, 0)} ${periodWords[returns.period]} return${returns.count === 1 ? '' : 's'}: at least 2 are needed.`
      : null
  const ratio = (value: number | null, why: string): Figure =>
    value === null ? { missing: tooFewReturns ?? why } : { text: formatRatio(value) }
  const toned = (value: number): Figure => ({ text: formatReturn(value), tone: signClass(value * 100, 2) })

  const first = result.series.price[0]
  const last = result.series.price[result.series.price.length - 1]
  const { buyAndHold, holdStart } = summary.benchmarks
  const against = (excess: number) =>
    `ends at ${formatAmount(summary.endValue - excess, decimals)} ${quote}; the strategy ${excess >= 0 ? 'beat' : 'lagged'} it by ${formatAmount(Math.abs(excess), decimals)} ${quote}`

  const window = metrics.maxDrawdownWindow
  const noDrawdown = { missing: 'Equity never fell below a previous peak.' }
  const volume = result.fills.reduce((total, fill) => total + fill.quoteAmount, 0)
  const noTrades = 'No trades, so no volume.'

  const rows = [
    groupRow('Return'),
    figureRow('Total return', toned(metrics.totalReturn), `end value over start value`),
    figureRow(
      'CAGR',
      metrics.cagr === null ? { missing: noGrowthRate(result) } : toned(metrics.cagr),
      metrics.cagr === null
        ? noGrowthRate(result)
        : `compounded over a year from ${formatDuration(duration)}${duration < 90 * dayMs ? ': an extrapolation, read with care' : ''}`,
    ),
    figureRow(
      'Market change',
      metrics.marketChange === null ? { missing: 'No price at the start or at the end of the run.' } : toned(metrics.marketChange),
      first && last ? `${pair.base} from ${formatPrice(first[1])} to ${formatPrice(last[1])} ${quote}` : '',
    ),
    figureRow(
      'Buy-and-hold',
      toned(buyAndHold.return),
      `the start value in ${pair.base} at the first price: ${against(buyAndHold.excess)}`,
    ),
    figureRow('Starting balances kept', toned(holdStart.return), against(holdStart.excess)),
    groupRow('Risk'),
    figureRow(
      'Volatility',
      metrics.volatility === null
        ? { missing: tooFewReturns ?? 'The returns could not give a deviation.' }
        : { text: formatPercent(metrics.volatility) },
      `annualised standard deviation of the ${formatAmount(returns.count, 0)} ${periodWords[returns.period]} returns (${formatAmount(returns.periodsPerYear, 0)} periods a year)`,
    ),
    figureRow(
      'Sharpe ratio',
      ratio(metrics.sharpe, 'The returns do not vary: the ratio divides by their standard deviation.'),
      `mean return above the risk-free rate over its standard deviation, annualised; ${returnsText}`,
    ),
    figureRow(
      'Sortino ratio',
      ratio(metrics.sortino, 'No return fell below the risk-free rate, so there is no downside deviation to divide by.'),
      'as Sharpe, over the deviation of the returns below the risk-free rate only',
    ),
    figureRow(
      'Calmar ratio',
      metrics.calmar === null
        ? { missing: metrics.maxDrawdown === 0 ? 'No drawdown: the ratio divides by it.' : 'No CAGR for this run (see CAGR).' }
        : { text: formatRatio(metrics.calmar) },
      `CAGR over the maximum drawdown${metrics.calmar === null ? (metrics.maxDrawdown === 0 ? ': no drawdown' : ': no CAGR for this run') : ''}`,
    ),
    figureRow(
      'Maximum drawdown',
      window === null || metrics.maxDrawdown === 0 ? noDrawdown : { text: `-${formatPercent(metrics.maxDrawdown)}`, tone: 'neg' },
      window ? `peak ${formatTime(window.from)}, trough ${formatTime(window.to)} UTC` : '',
    ),
    figureRow(
      'Recovery',
      window === null || metrics.maxDrawdown === 0
        ? noDrawdown
        : window.recoveredAt === null
          ? { text: 'not recovered', tone: 'neg' }
          : { text: formatDuration(window.recoveredAt - window.from) },
      window === null
        ? ''
        : window.recoveredAt === null
          ? `still below the ${formatTime(window.from)} peak at the end`
          : `from the peak, back at it ${formatTime(window.recoveredAt)} UTC`,
    ),
    figureRow(
      'Longest drawdown',
      metrics.maxDrawdownDurationMs > 0 ? { text: formatDuration(metrics.maxDrawdownDurationMs) } : noDrawdown,
      'longest time below a previous peak (to the end, when not recovered)',
    ),
    groupRow('Trading'),
    figureRow('Exposure', { text: formatPercent(metrics.exposure, 1) }, `share of the period with at least 1 % of equity in ${pair.base}`),
    figureRow(
      'Fees / volume',
      metrics.feesShareOfVolume === null ? { missing: noTrades } : { text: formatPercent(metrics.feesShareOfVolume, 3) },
      volume > 0 ? `${formatAmount(summary.fees, decimals)} ${quote} of ${formatAmount(volume, decimals)} ${quote} traded` : '',
    ),
    figureRow(
      'Gas / volume',
      metrics.gasShareOfVolume === null ? { missing: noTrades } : { text: formatPercent(metrics.gasShareOfVolume, 3) },
      volume > 0 ? `${formatAmount(summary.gas, decimals)} ${quote} of ${formatAmount(volume, decimals)} ${quote} traded` : '',
    ),
    groupRow('Round trips, all strategies'),
    ...roundTripRows(result, decimals),
  ]
  return `<section>
<h2>Metrics</h2>
<p class="note">${escapeHtml(`Ratios from ${returnsText}.`)}</p>
<table class="figures summary metrics">
<tbody>
${rows.join('\n')}
</tbody>
</table>
</section>`
}

function roundTripRows(result: BacktestResult, decimals: number): string[] {
  const trips = result.summary.metrics.roundTrips
  if (trips === null) return [figureRow('Round trips', { missing: noRoundTrip }, 'none closed: the strategies only bought, or only sold')]
  const [count, winRate, averageWin, averageLoss, profitFactor, expectancy] = roundTripFigures(trips, decimals) as [
    Figure,
    Figure,
    Figure,
    Figure,
    Figure,
    Figure,
  ]
  const { quote } = result.pair
  return [
    figureRow('Round trips', count, `${formatAmount(trips.wins, 0)} won, ${formatAmount(trips.losses, 0)} lost`),
    figureRow('Win rate', winRate),
    figureRow('Average win', averageWin, `${quote}, net of fees`),
    figureRow('Average loss', averageLoss, `${quote}, net of fees`),
    figureRow('Profit factor', profitFactor, 'gross profit over gross loss'),
    figureRow('Expectancy', expectancy, `${quote} per round trip`),
  ]
}
