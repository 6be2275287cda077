import uPlot from 'uplot'
import { element, formatTime } from './dom.js'

/** One line (or, with `pointsOnly`, markers without a line) of clock-ms times and values. */
export type ChartSeries = {
  label: string
  points: readonly { at: number; value: number }[]
  color: string
  pointsOnly?: boolean
  /** A step line (a running total that holds between changes). */
  stepped?: boolean
  /** Marker size in CSS pixels. */
  size?: number
}

export type ChartParameters = { title: string; series: readonly ChartSeries[]; height?: number; note?: string }

const stepped = uPlot.paths.stepped?.({ align: 1 })

/**
 * A time chart drawn by uPlot on a canvas, as wide as its box (it follows the box's width). Series with their own
 * times are joined on one time axis; a series has no value (a gap) where another has a point.
 */
export function timeChart({ title, series, height = 220, note }: ChartParameters): HTMLElement {
  const plot = element('div', { class: 'chart-plot' })
  const figure = element(
    'figure',
    { class: 'chart', 'data-points': series.reduce((sum, line) => sum + line.points.length, 0) },
    element('figcaption', {}, title, note ? element('small', {}, ` — ${note}`) : null),
    plot,
  )
  const drawn = series.filter((line) => line.points.length > 0)
  if (drawn.length === 0) {
    plot.append(element('p', { class: 'empty' }, 'nothing to chart yet'))
    return figure
  }
  // uPlot's time axis is in seconds.
  const data = uPlot.join(drawn.map((line) => [line.points.map((point) => point.at / 1000), line.points.map((point) => point.value)]))
  const times = data[0]
  const first = times[0] ?? 0
  const last = times.at(-1) ?? first
  const options: uPlot.Options = {
    width: 600,
    height,
    series: [
      {},
      ...drawn.map((line) => ({
        label: line.label,
        stroke: line.color,
        width: line.pointsOnly ? 0 : 2,
        spanGaps: !line.pointsOnly,
        points: {
          show: line.pointsOnly || line.points.length < 30,
          size: line.size ?? (line.pointsOnly ? 8 : 5),
          fill: line.color,
          stroke: line.color,
        },
        ...(line.pointsOnly ? { paths: () => null } : line.stepped && stepped ? { paths: stepped } : {}),
      })),
    ],
    // One point (or points at one time, one value) would get a range of years or of nothing: pad it.
    scales: {
      x: { time: true, auto: false, ...(last - first < 60 ? { min: first - 60, max: last + 60 } : { min: first, max: last }) },
      y: { range: (_chart, min, max) => paddedRange(min, max) },
    },
    axes: [
      { values: (_chart, values) => values.map((seconds) => formatTimeTick(seconds, last - first)) },
      { size: 90, values: (_chart, values) => values.map((value) => formatTick(value, tickStep(values))) },
    ],
    legend: { show: true },
    cursor: { drag: { x: true, y: false } },
  }
  const chart = new uPlot(options, data, plot)
  new ResizeObserver(() => {
    const width = Math.floor(plot.clientWidth)
    if (width > 0 && width !== chart.width) chart.setSize({ width, height })
  }).observe(plot)
  return figure
}

/** A time axis label: the time of day within a day's span, else the day and time (local time, 24 h). */
function formatTimeTick(seconds: number, span: number): string {
  const text = formatTime(seconds * 1000)
  return span < 86_400 ? text.slice(11) : text.slice(5, 16)
}

/** The values' range with 10 % room (a flat series gets 1 % of its value either side, zero gets ±1). */
function paddedRange(min: number | null, max: number | null): [number, number] {
  const low = min ?? 0
  const high = max ?? 0
  const span = high - low
  const room = span > 0 ? span * 0.1 : Math.abs(high) * 0.01 || 1
  return [low - room, high + room]
}

/** The distance between two ticks of an axis (0 with fewer than two). */
function tickStep(values: readonly number[]): number {
  return values.length > 1 ? Math.abs((values[1] ?? 0) - (values[0] ?? 0)) : 0
}

/**
 * Big or tiny amounts as 1.003e-7, others with as many decimals as the ticks' step needs (1,196,465 and 1,196,470
 * apart, not both 1,196,470).
 */
function formatTick(value: number, step: number): string {
  const size = Math.abs(value)
  if (size !== 0 && (size >= 1e9 || size < 1e-3)) return value.toExponential(3).replace(/\.?0+e/, 'e')
  let decimals = 0
  // The fewest decimals that write the step exactly (a step of 2.5 needs one).
  while (decimals < 8 && step > 0 && Math.abs(step * 10 ** decimals - Math.round(step * 10 ** decimals)) > 1e-6) decimals += 1
  if (step === 0) decimals = 4
  return value.toLocaleString('en-US', { minimumFractionDigits: 0, maximumFractionDigits: decimals })
}

/** `a / b` of two amounts (decimal strings, raw or in token units) as a float: a price. */
export function ratioOf(numerator: string, denominator: string): number | undefined {
  const bottom = Number(denominator)
  if (bottom === 0) return undefined
  return Number(numerator) / bottom
}
