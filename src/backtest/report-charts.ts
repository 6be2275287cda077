import type { BacktestFill, BacktestResult, SeriesPoint } from './backtest-result.js'
import { downsampleSeries } from './downsample-series.js'
import {
  formatAmount,
  formatBps,
  formatCompact,
  formatDate,
  formatDuration,
  formatPercent,
  formatPrice,
  formatTime,
  formatTokenAmount,
} from './report-format.js'

// The data of the report's line charts (equity against the benchmarks, drawdown, price with fills): series thinned to
// the plot's pixel columns, fills placed (or grouped when there are too many to mark one by one), ticks chosen and
// labelled. report-slippage.ts bins the slippage histogram; report-svg.ts draws them all.

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
/**
 * `name` is the line's CSS class; `points` are flat `[t0, v0, t1, v1, ...]`; `area` also fills between the line and
 * zero.
 */
export type ChartLine = { name: string; label: string; stroke: 'solid' | 'dashed' | 'dotted'; area: boolean; points: number[] }
export type ChartMarker = { t: number; v: number; side: 'buy' | 'sell'; count: number; title: string }
/** A histogram bin: `better` holds only values below zero, `worse` only above, `neutral` the bin around zero. */
export type ChartBar = { from: number; to: number; count: number; kind: 'better' | 'worse' | 'neutral'; title: string }
/** A shaded time span: a drawdown (peak to trough) or its recovery (trough to the peak regained, or the end). */
export type ChartBand = { from: number; to: number; kind: 'drawdown' | 'recovery'; title: string }
/** A reference line: `x` vertical at a value of the x axis, `y` horizontal (labelled at the plot's `end` or `start`). */
export type ChartGuide = { axis: 'x' | 'y'; at: number; label: string; labelAt?: 'start' | 'end' }
/**
 * A point of a scatter at (x, y) in the axes' units: `classes` its CSS classes (its colour; `hollow` draws only its
 * outline), `shape` what is drawn, `title` its tooltip.
 */
export type ChartDot = { x: number; y: number; shape: 'circle' | 'diamond' | 'cross'; classes: string; title: string }

export type ChartModel = {
  id: string
  x: Axis
  y: Axis
  /** Hover shows the lines' values at the pointer, with times. */
  readout: boolean
  /** How the readout shows values: as they are, or fractions as percentages. */
  unit: 'value' | 'percent'
  lines: ChartLine[]
  markers: ChartMarker[]
  bars: ChartBar[]
  bands: ChartBand[]
  guides: ChartGuide[]
  /** Scatter points, drawn over everything but the fill markers, in order (the last on top). */
  dots: ChartDot[]
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

/** A value axis over `values`, padded a little either side, with round ticks. */
export function valueAxis(values: Iterable<number>, format?: (value: number) => string): Axis {
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
  const { equity, buyAndHold, holdStart, price, drawdown } = result.series
  for (const points of [equity, buyAndHold, holdStart, price, drawdown]) {
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

function line(name: string, label: string, stroke: ChartLine['stroke'], points: number[]): ChartLine {
  return { name, label, stroke, area: false, points }
}

/** The maximum drawdown's peak-to-trough span, when there was one. */
function drawdownBand(result: BacktestResult): ChartBand | null {
  const { maxDrawdown, maxDrawdownWindow: window } = result.summary.metrics
  if (!window || !(maxDrawdown > 0)) return null
  return {
    from: window.from,
    to: window.to,
    kind: 'drawdown',
    title: `Maximum drawdown -${formatPercent(maxDrawdown)}: peak ${formatTime(window.from)}, trough ${formatTime(window.to)} UTC`,
  }
}

/**
 * Equity of the strategy against its two benchmarks, buy-and-hold (dashed) and the starting balances kept (dotted),
 * with the maximum drawdown shaded. The strategy's line is drawn last, on top.
 */
export function buildEquityChart(result: BacktestResult): { chart: ChartModel; counts: DrawnCount[] } {
  const range = timeRange(result)
  const { quote } = result.pair
  const thin = (points: readonly SeriesPoint[]) => flatten(downsampleSeries(points, plotWidth, range))
  const equity = thin(result.series.equity)
  const buyAndHold = thin(result.series.buyAndHold)
  const holdStart = thin(result.series.holdStart)
  const band = drawdownBand(result)
  const chart: ChartModel = {
    id: 'chart-equity',
    x: timeAxis(range),
    y: valueAxis(seriesValues(equity, buyAndHold, holdStart)),
    readout: true,
    unit: 'value',
    lines: [
      line('equity', `Strategy, ${quote}`, 'solid', equity),
      line('buy-and-hold', `Buy-and-hold, ${quote}`, 'dashed', buyAndHold),
      line('hold-start', `Starting balances, ${quote}`, 'dotted', holdStart),
    ],
    markers: [],
    bars: [],
    bands: band ? [band] : [],
    guides: [],
    dots: [],
    empty: equity.length + buyAndHold.length + holdStart.length === 0 ? 'No equity series in this result.' : null,
  }
  return {
    chart,
    counts: [
      { points: result.series.equity.length, drawn: equity.length / 2 },
      { points: result.series.buyAndHold.length, drawn: buyAndHold.length / 2 },
      { points: result.series.holdStart.length, drawn: holdStart.length / 2 },
    ],
  }
}

/** `-3.4 %` for an axis. */
function percentTick(fraction: number): string {
  return `${formatCompact(fraction * 100)} %`
}

/**
 * Equity's fall from its running peak, drawn downwards from 0 as a shaded area, with the maximum drawdown's level
 * marked and its window shaded: peak to trough, then trough to recovery (or to the end when equity never got back).
 */
export function buildDrawdownChart(result: BacktestResult): { chart: ChartModel; counts: DrawnCount[] } {
  const range = timeRange(result)
  const flat = flatten(downsampleSeries(result.series.drawdown, plotWidth, range))
  let deepest = 0
  for (let index = 1; index < flat.length; index += 2) {
    const fall = -(flat[index] as number)
    flat[index] = fall === 0 ? 0 : fall
    if (fall < deepest) deepest = fall
  }
  const { maxDrawdown, maxDrawdownWindow: window } = result.summary.metrics
  if (-maxDrawdown < deepest) deepest = -maxDrawdown
  const lower = deepest < 0 ? deepest * 1.08 : -0.01
  const upper = -lower * 0.04
  const bands: ChartBand[] = []
  const band = drawdownBand(result)
  if (band && window) {
    bands.push(band)
    const recoveredAt = window.recoveredAt
    if (recoveredAt === null || recoveredAt > window.to) {
      bands.push({
        from: window.to,
        to: recoveredAt ?? range.to,
        kind: 'recovery',
        title:
          recoveredAt === null
            ? `Not recovered by the end: still below the ${formatTime(window.from)} peak`
            : `Recovered ${formatTime(recoveredAt)} UTC, ${formatDuration(recoveredAt - window.from)} after the peak`,
      })
    }
  }
  const chart: ChartModel = {
    id: 'chart-drawdown',
    x: timeAxis(range),
    y: { min: lower, max: upper, ticks: valueTicks(lower, upper, percentTick, 4) },
    readout: true,
    unit: 'percent',
    lines: [{ ...line('drawdown', 'Drawdown', 'solid', flat), area: true }],
    markers: [],
    bars: [],
    bands,
    // labelled on the left, where a drawdown curve starts at 0, away from the line
    guides: maxDrawdown > 0 ? [{ axis: 'y', at: -maxDrawdown, label: `maximum -${formatPercent(maxDrawdown)}`, labelAt: 'start' }] : [],
    dots: [],
    empty: flat.length === 0 ? 'No drawdown series in this result.' : null,
  }
  return { chart, counts: [{ points: result.series.drawdown.length, drawn: flat.length / 2 }] }
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
    unit: 'value',
    lines: [line('price', `Price, ${result.pair.quote} per ${result.pair.base}`, 'solid', price)],
    markers,
    bars: [],
    bands: [],
    guides:
      result.summary.averagePrice === null
        ? []
        : [{ axis: 'y', at: result.summary.averagePrice, label: `average ${formatPrice(result.summary.averagePrice)}` }],
    dots: [],
    empty: price.length === 0 && markers.length === 0 ? 'No price series in this result.' : null,
  }
  return { chart, counts: [{ points: result.series.price.length, drawn: price.length / 2 }] }
}
