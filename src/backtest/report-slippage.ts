import type { BacktestFill, BacktestResult } from './backtest-result.js'
import { type ChartBar, type ChartModel, niceStep, valueTicks } from './report-charts.js'
import { formatAmount, formatBps, formatCompact, formatSigned } from './report-format.js'

// The slippage histogram of the report. Bins are centred on multiples of their width, so one bin sits around zero
// (neutral: as planned) and every other bin holds values of one sign only, coloured by it: below zero better than
// planned, above worse.

function quantile(sorted: Float64Array, q: number): number {
  const position = (sorted.length - 1) * q
  const lower = Math.floor(position)
  const upper = Math.ceil(position)
  const a = sorted[lower] as number
  const b = sorted[upper] as number
  return a + (b - a) * (position - lower)
}

/** Decimals that show a bin edge (a multiple of half the bin width) exactly, 1 to 4. */
function edgeDecimals(step: number): number {
  for (let decimals = 1; decimals < 4; decimals++) {
    const scaled = (step / 2) * 10 ** decimals
    if (Math.abs(scaled - Math.round(scaled)) < 1e-6) return decimals
  }
  return 4
}

const kindWords: Record<ChartBar['kind'], string> = {
  better: 'better than planned',
  worse: 'worse than planned',
  neutral: 'around zero: as planned',
}

/**
 * Bins the fills' slippage (bps, positive = worse for the trader) at a round width, always spanning zero. Bin `k`
 * holds [(k − ½)·width, (k + ½)·width): `better` below zero, `neutral` for k = 0, `worse` above. With 50 values or
 * more the range is the 1st to 99th percentile and the rest falls into the edge bins (their titles say how many), so
 * one outlier does not squash the picture; an edge bin's outliers lie further from zero, so keep its sign.
 */
export function binSlippage(values: readonly number[], target = 24): ChartBar[] {
  if (values.length === 0) return []
  // a typed array sorts numerically without a comparator: a million fills in tens of ms
  const sorted = Float64Array.from(values).sort()
  let low = Math.min(0, values.length >= 50 ? quantile(sorted, 0.01) : (sorted[0] as number))
  let high = Math.max(0, values.length >= 50 ? quantile(sorted, 0.99) : (sorted[sorted.length - 1] as number))
  if (high - low < 1e-9) {
    low = -0.5
    high = 0.5
  }
  const step = niceStep(high - low, target)
  // the fuzz puts a value on a bin edge into the bin above, whatever the rounding of the division
  const binOf = (value: number) => Math.floor(value / step + 0.5 + 1e-9)
  const first = binOf(low)
  const binCount = binOf(high) - first + 1
  const counts = new Array<number>(binCount).fill(0)
  let below = 0
  let above = 0
  for (const value of sorted) {
    const index = binOf(value) - first
    if (index < 0) below++
    if (index >= binCount) above++
    const bin = Math.min(binCount - 1, Math.max(0, index))
    counts[bin] = (counts[bin] as number) + 1
  }
  const decimals = edgeDecimals(step)
  return counts.map((count, index) => {
    const k = first + index
    const from = (k - 0.5) * step
    const to = (k + 0.5) * step
    const kind: ChartBar['kind'] = k < 0 ? 'better' : k > 0 ? 'worse' : 'neutral'
    const extra =
      index === 0 && below > 0 ? `, including ${below} below` : index === binCount - 1 && above > 0 ? `, including ${above} above` : ''
    const fills = count === 1 ? 'fill' : 'fills'
    return {
      from,
      to,
      count,
      kind,
      title: `${formatAmount(count, 0)} ${fills} from ${formatSigned(from, decimals)} to ${formatSigned(to, decimals)} bps (${kindWords[kind]})${extra}`,
    }
  })
}

/** How far fills landed from the price they were planned at, with the median and 95th percentile marked. */
export function buildSlippageChart(result: BacktestResult): { chart: ChartModel } {
  const slippages = new Array<number>(result.fills.length)
  for (let index = 0; index < result.fills.length; index++) slippages[index] = (result.fills[index] as BacktestFill).slippageBps
  const bars = binSlippage(slippages)
  const first = bars[0]
  const last = bars[bars.length - 1]
  const xMin = first?.from ?? -1
  const xMax = last?.to ?? 1
  const slippage = result.summary.slippageBps
  const guides = slippage
    ? [
        { axis: 'x' as const, at: slippage.p50, label: `median ${formatBps(slippage.p50)}` },
        { axis: 'x' as const, at: slippage.p95, label: `p95 ${formatBps(slippage.p95)}` },
      ].filter((guide) => guide.at >= xMin && guide.at <= xMax)
    : []
  const highest = bars.reduce((most, bar) => Math.max(most, bar.count), 0)
  const chart: ChartModel = {
    id: 'chart-slippage',
    x: { min: xMin, max: xMax, ticks: valueTicks(xMin, xMax, formatCompact, 8) },
    y: {
      min: 0,
      max: Math.max(1, highest * 1.08),
      ticks: valueTicks(0, Math.max(1, highest), formatCompact, 4).filter((tick) => Number.isInteger(tick.at)),
    },
    readout: false,
    unit: 'value',
    lines: [],
    markers: [],
    bars,
    bands: [],
    guides,
    dots: [],
    empty: bars.length === 0 ? 'No fills, so no slippage to show.' : null,
  }
  return { chart }
}
