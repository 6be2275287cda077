import type { BacktestFill, BacktestResult, SeriesPoint } from './backtest-result.js'
import { downsampleSeries } from './downsample-series.js'
import {
  formatAmount,
  formatBps,
  formatCompact,
  formatDate,
  formatPercent,
  formatPrice,
  formatSigned,
  formatTime,
  formatTokenAmount,
} from './report-format.js'

// The data of the report's three charts: series thinned to the plot's pixel columns, fills placed (or grouped when
// there are too many to mark one by one), slippage binned, ticks chosen and labelled. report-svg.ts draws them.

/** The chart's viewBox and plot margins; shared with the inline script. */
export const chartGeometry = { width: 960, height: 320, left: 70, right: 16, top: 14, bottom: 30 } as const
export const plotWidth = chartGeometry.width - chartGeometry.left - chartGeometry.right

/**
 * Above this many fills the price chart groups them per column of `fillGroupWidth` pixels and side. Each marker
 * carries its fill as a tooltip (about 250 bytes), so the cap keeps a busy run's page to a few hundred kB.
 */
export const maxFillMarkers = 1000
export const fillGroupWidth = 2

export type Tick = { at: number; label: string }
export type Axis = { min: number; max: number; ticks: Tick[] }
export type ChartLine = { name: string; label: string; dashed: boolean; points: number[] }
export type ChartMarker = { t: number; v: number; side: 'buy' | 'sell'; count: number; title: string }
export type ChartBar = { from: number; to: number; count: number; kind: 'better' | 'worse'; title: string }
export type ChartBand = { from: number; to: number; title: string }
/** A reference line: `x` vertical at a value of the x axis, `y` horizontal. */
export type ChartGuide = { axis: 'x' | 'y'; at: number; label: string }

export type ChartModel = {
  id: string
  x: Axis
  y: Axis
  /** Hover shows the lines' values at the pointer, with times. */
  readout: boolean
  lines: ChartLine[]
  markers: ChartMarker[]
  bars: ChartBar[]
  bands: ChartBand[]
  guides: ChartGuide[]
  /** Shown instead of a plot when there is nothing to draw. */
  empty: string | null
}

/** `n` points drawn from `m` of the series, for the caption. */
export type DrawnCount = { points: number; drawn: number }

function flatten(points: readonly SeriesPoint[]): number[] {
  const flat = new Array<number>(points.length * 2)
  for (let index = 0; index < points.length; index++) {
    const [t, value] = points[index] as SeriesPoint
    flat[2 * index] = t
    // 8 significant digits are finer than any pixel and halve the page
    flat[2 * index + 1] = Number(value.toPrecision(8))
  }
  return flat
}

/** Round steps: 1, 2, 2.5 or 5 × 10^k, about `target` of them over the span. */
export function niceStep(span: number, target: number): number {
  if (!(span > 0)) return 1
  const raw = span / target
  const power = 10 ** Math.floor(Math.log10(raw))
  const scaled = raw / power
  const factor = scaled <= 1 ? 1 : scaled <= 2 ? 2 : scaled <= 2.5 ? 2.5 : scaled <= 5 ? 5 : 10
  return factor * power
}

/** Value ticks at round steps inside [min, max]. */
export function valueTicks(min: number, max: number, format: (value: number) => string = formatCompact, target = 5): Tick[] {
  if (min === max) return [{ at: min, label: format(min) }]
  const step = niceStep(max - min, target)
  const ticks: Tick[] = []
  for (let index = Math.ceil(min / step); index * step <= max + step * 1e-9; index++) {
    const at = Math.abs(index * step) < step * 1e-9 ? 0 : index * step
    ticks.push({ at, label: format(at) })
  }
  return ticks
}

const minute = 60_000
const hour = 60 * minute
const day = 24 * hour
const timeSteps = [minute, 5 * minute, 15 * minute, 30 * minute, hour, 3 * hour, 6 * hour, 12 * hour, day, 2 * day, 7 * day, 14 * day]
const monthSteps = [1, 2, 3, 6, 12, 24, 60]

/** Time ticks at whole UTC minutes, hours, days or months; labels with the time of day when the span is short. */
export function timeTicks(from: number, to: number, target = 7): Tick[] {
  if (!(to > from)) return [{ at: from, label: formatTime(from) }]
  const span = to - from
  const label = span <= 3 * day ? formatTime : formatDate
  const step = timeSteps.find((candidate) => span / candidate <= target)
  if (step !== undefined) {
    const ticks: Tick[] = []
    for (let at = Math.ceil(from / step) * step; at <= to; at += step) ticks.push({ at, label: label(at) })
    return ticks
  }
  const months = monthSteps.find((candidate) => span / (candidate * 30.44 * day) <= target) ?? 120
  const start = new Date(from)
  let index = start.getUTCFullYear() * 12 + start.getUTCMonth()
  if (Date.UTC(Math.floor(index / 12), index % 12) < from) index++
  index = Math.ceil(index / months) * months
  const ticks: Tick[] = []
  for (; ; index += months) {
    const at = Date.UTC(Math.floor(index / 12), index % 12)
    if (at > to) return ticks
    ticks.push({ at, label: months >= 12 ? String(Math.floor(index / 12)) : formatDate(at).slice(0, 7) })
  }
}

function valueAxis(values: Iterable<number>, format?: (value: number) => string): Axis {
  let min = Number.POSITIVE_INFINITY
  let max = Number.NEGATIVE_INFINITY
  for (const value of values) {
    if (value < min) min = value
    if (value > max) max = value
  }
  if (min > max) return { min: 0, max: 1, ticks: valueTicks(0, 1, format) }
  const pad = max > min ? (max - min) * 0.06 : Math.abs(max) * 0.01 || 1
  const lower = min - pad
  const upper = max + pad
  return { min: lower, max: upper, ticks: valueTicks(lower, upper, format) }
}

function* seriesValues(...flats: number[][]): Generator<number> {
  for (const flat of flats) for (let index = 1; index < flat.length; index += 2) yield flat[index] as number
}

/** The run's period, widened to any point or fill outside it so that nothing is drawn off the plot. */
export function timeRange(result: BacktestResult): { from: number; to: number } {
  let from = result.from
  let to = result.to
  for (const points of [result.series.equity, result.series.hold, result.series.price]) {
    const first = points[0]
    const last = points[points.length - 1]
    if (first && first[0] < from) from = first[0]
    if (last && last[0] > to) to = last[0]
  }
  for (const fill of result.fills) {
    if (fill.t < from) from = fill.t
    if (fill.t > to) to = fill.t
  }
  return { from, to: to > from ? to : from + 1 }
}

function timeAxis(range: { from: number; to: number }): Axis {
  return { min: range.from, max: range.to, ticks: timeTicks(range.from, range.to) }
}

/** Equity of the strategy against holding the starting balances, with the maximum drawdown shaded. */
export function buildEquityChart(result: BacktestResult): { chart: ChartModel; counts: DrawnCount[] } {
  const range = timeRange(result)
  const equity = flatten(downsampleSeries(result.series.equity, plotWidth, range))
  const hold = flatten(downsampleSeries(result.series.hold, plotWidth, range))
  const window = result.summary.maxDrawdownWindow
  const chart: ChartModel = {
    id: 'chart-equity',
    x: timeAxis(range),
    y: valueAxis(seriesValues(equity, hold)),
    readout: true,
    lines: [
      { name: 'hold', label: `Holding, ${result.pair.quote}`, dashed: true, points: hold },
      { name: 'equity', label: `Strategy, ${result.pair.quote}`, dashed: false, points: equity },
    ],
    markers: [],
    bars: [],
    bands:
      window && result.summary.maxDrawdown > 0
        ? [
            {
              from: window.from,
              to: window.to,
              title: `Maximum drawdown ${formatPercent(result.summary.maxDrawdown)}: ${formatTime(window.from)} to ${formatTime(window.to)} UTC`,
            },
          ]
        : [],
    guides: [],
    empty: equity.length === 0 && hold.length === 0 ? 'No equity series in this result.' : null,
  }
  return {
    chart,
    counts: [
      { points: result.series.equity.length, drawn: equity.length / 2 },
      { points: result.series.hold.length, drawn: hold.length / 2 },
    ],
  }
}

function fillTitle(fill: BacktestFill, result: BacktestResult): string {
  const { base, quote } = result.pair
  return [
    `${fill.side} ${formatTokenAmount(fill.baseAmount)} ${base} at ${formatPrice(fill.price)} ${quote}`,
    `${formatTime(fill.t)} UTC`,
    `${formatAmount(fill.quoteAmount)} ${quote}, slippage ${formatBps(fill.slippageBps)}, fee ${formatAmount(fill.fee)}, gas ${formatAmount(fill.gas)}`,
    `${fill.mode}, strategy ${fill.strategy}, order ${fill.orderId}`,
  ].join('\n')
}

/** One marker per fill, or per column of `fillGroupWidth` pixels and side when there are more than `limit` fills. */
export function placeFillMarkers(result: BacktestResult, limit = maxFillMarkers): ChartMarker[] {
  const fills = result.fills
  const range = timeRange(result)
  if (fills.length <= limit) {
    return fills.map((fill) => ({
      t: fill.t,
      v: fill.price,
      side: fill.side === 'BUY' ? 'buy' : 'sell',
      count: 1,
      title: fillTitle(fill, result),
    }))
  }
  const span = range.to - range.from
  const columns = Math.ceil(plotWidth / fillGroupWidth)
  type Group = { side: 'buy' | 'sell'; count: number; base: number; quote: number; first: number; last: number; tSum: number }
  const groups = new Map<string, Group>()
  for (const fill of fills) {
    const side = fill.side === 'BUY' ? 'buy' : 'sell'
    const column = Math.min(columns - 1, Math.floor(((fill.t - range.from) / span) * columns))
    const key = `${side}${column}`
    const group = groups.get(key) ?? { side, count: 0, base: 0, quote: 0, first: fill.t, last: fill.t, tSum: 0 }
    group.count++
    group.base += fill.baseAmount
    group.quote += fill.quoteAmount
    group.tSum += fill.t
    group.first = Math.min(group.first, fill.t)
    group.last = Math.max(group.last, fill.t)
    groups.set(key, group)
  }
  const { base, quote } = result.pair
  return [...groups.values()]
    .sort((a, b) => a.first - b.first)
    .map((group) => {
      const price = group.base > 0 ? group.quote / group.base : 0
      const words = group.side === 'buy' ? 'buys' : 'sells'
      return {
        t: Math.round(group.tSum / group.count),
        v: price,
        side: group.side,
        count: group.count,
        title: `${formatAmount(group.count, 0)} ${words}, ${formatTime(group.first)} to ${formatTime(group.last)} UTC\n${formatTokenAmount(group.base)} ${base} at ${formatPrice(price)} ${quote} (volume-weighted)`,
      }
    })
}

/** The market price with every fill marked: buys as upward, sells as downward triangles. */
export function buildPriceChart(result: BacktestResult): { chart: ChartModel; counts: DrawnCount[] } {
  const range = timeRange(result)
  const price = flatten(downsampleSeries(result.series.price, plotWidth, range))
  const markers = placeFillMarkers(result)
  const chart: ChartModel = {
    id: 'chart-price',
    x: timeAxis(range),
    y: valueAxis(
      (function* () {
        yield* seriesValues(price)
        for (const marker of markers) yield marker.v
      })(),
      formatCompact,
    ),
    readout: true,
    lines: [{ name: 'price', label: `Price, ${result.pair.quote} per ${result.pair.base}`, dashed: false, points: price }],
    markers,
    bars: [],
    bands: [],
    guides:
      result.summary.averagePrice === null
        ? []
        : [{ axis: 'y', at: result.summary.averagePrice, label: `average ${formatPrice(result.summary.averagePrice)}` }],
    empty: price.length === 0 && markers.length === 0 ? 'No price series in this result.' : null,
  }
  return { chart, counts: [{ points: result.series.price.length, drawn: price.length / 2 }] }
}

function quantile(sorted: Float64Array, q: number): number {
  const position = (sorted.length - 1) * q
  const lower = Math.floor(position)
  const upper = Math.ceil(position)
  const a = sorted[lower] as number
  const b = sorted[upper] as number
  return a + (b - a) * (position - lower)
}

/**
 * Bins the fills' slippage at round widths. With 50 fills or more the range is the 1st to 99th percentile and the
 * rest falls into the edge bins (their titles say how many), so one outlier does not squash the picture.
 */
export function binSlippage(values: readonly number[], target = 24): ChartBar[] {
  if (values.length === 0) return []
  // a typed array sorts numerically without a comparator: a million fills in tens of ms
  const sorted = Float64Array.from(values).sort()
  let low = values.length >= 50 ? quantile(sorted, 0.01) : (sorted[0] as number)
  let high = values.length >= 50 ? quantile(sorted, 0.99) : (sorted[sorted.length - 1] as number)
  if (high - low < 1e-9) {
    low -= 0.5
    high += 0.5
  }
  const step = niceStep(high - low, target)
  const start = Math.floor(low / step) * step
  const binCount = Math.max(1, Math.ceil((high - start) / step - 1e-9))
  const counts = new Array<number>(binCount).fill(0)
  let below = 0
  let above = 0
  for (const value of sorted) {
    const index = Math.floor((value - start) / step + 1e-9)
    if (index < 0) below++
    if (index >= binCount) above++
    const bin = Math.min(binCount - 1, Math.max(0, index))
    counts[bin] = (counts[bin] as number) + 1
  }
  return counts.map((count, index) => {
    const from = start + index * step
    const to = from + step
    const extra =
      index === 0 && below > 0 ? `, including ${below} below` : index === binCount - 1 && above > 0 ? `, including ${above} above` : ''
    const fills = count === 1 ? 'fill' : 'fills'
    return {
      from,
      to,
      count,
      kind: (from + to) / 2 > 0 ? 'worse' : 'better',
      title: `${formatAmount(count, 0)} ${fills} from ${formatSigned(from, 1)} to ${formatSigned(to, 1)} bps${extra}`,
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
    lines: [],
    markers: [],
    bars,
    bands: [],
    guides,
    empty: bars.length === 0 ? 'No fills, so no slippage to show.' : null,
  }
  return { chart }
}
