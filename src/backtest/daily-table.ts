import type { BacktestDay, SeriesPoint } from './backtest-result.js'
import { dayMs } from './metrics.js'

/** A fill as the day table counts it: whether it was a trade of the pair, and its fee and gas, quote token. */
export type DayFill = { t: number; trade: boolean; fee: number; gas: number }

/**
 * One row per UTC day from the equity curve's first day to its last, days without a point included. A day starts at
 * the value equity had at its midnight (the last point at or before it; the first day: the curve's first point) and
 * ends at the next day's start (the last day: the curve's last point), so the days' returns compound to the run's.
 * Trades count the fills between the pair's tokens; fees and gas sum every fill of the day.
 */
export function dailyTableOf(equity: readonly SeriesPoint[], fills: readonly DayFill[]): BacktestDay[] {
  const first = equity[0]
  const last = equity[equity.length - 1]
  if (!first || !last) return []
  const firstDay = Math.floor(first[0] / dayMs)
  const days = Math.floor(last[0] / dayMs) - firstDay + 1
  const starts: number[] = [first[1]]
  let index = 0
  for (let day = 1; day < days; day++) {
    const midnight = (firstDay + day) * dayMs
    while (index + 1 < equity.length && (equity[index + 1] as SeriesPoint)[0] <= midnight) index++
    starts.push((equity[index] as SeriesPoint)[1])
  }
  const rows: BacktestDay[] = starts.map((startValue, day) => {
    const endValue = day + 1 < days ? (starts[day + 1] as number) : last[1]
    return {
      day: new Date((firstDay + day) * dayMs).toISOString().slice(0, 10),
      startValue,
      endValue,
      return: startValue > 0 ? endValue / startValue - 1 : 0,
      trades: 0,
      fees: 0,
      gas: 0,
    }
  })
  for (const fill of fills) {
    // a fill outside the curve's span (before its first point, at the same instant) counts on the nearest day
    const row = rows[Math.min(days - 1, Math.max(0, Math.floor(fill.t / dayMs) - firstDay))] as BacktestDay
    if (fill.trade) row.trades += 1
    row.fees += fill.fee
    row.gas += fill.gas
  }
  return rows
}
