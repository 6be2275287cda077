import { type ChartDot, type ChartModel, chartGeometry } from './report-charts.js'
import { escapeHtml } from './report-format.js'

// Draws a chart model as inline SVG markup when the report is rendered, so the page shows its charts without running
// any script. Coordinates are rounded to a tenth of a unit of the viewBox (finer than a pixel, and deterministic).

const { width, height, left, right, top, bottom } = chartGeometry
const plotWidth = width - left - right
const plotHeight = height - top - bottom

/** A tenth of a viewBox unit; never `-0`. */
function round(value: number): number {
  const rounded = Math.round(value * 10) / 10
  return rounded === 0 ? 0 : rounded
}

/** Maps the chart's axes to viewBox coordinates; a flat axis puts everything in the middle. */
export function chartScales(chart: Pick<ChartModel, 'x' | 'y'>): { x: (value: number) => number; y: (value: number) => number } {
  const xSpan = chart.x.max - chart.x.min
  const ySpan = chart.y.max - chart.y.min
  return {
    x: (value) => round(left + (xSpan > 0 ? ((value - chart.x.min) / xSpan) * plotWidth : plotWidth / 2)),
    y: (value) => round(top + plotHeight - (ySpan > 0 ? ((value - chart.y.min) / ySpan) * plotHeight : plotHeight / 2)),
  }
}

function text(x: number, y: number, content: string, className: string, anchor: 'start' | 'middle' | 'end' = 'start'): string {
  return `<text x="${x}" y="${y}" class="${className}" text-anchor="${anchor}">${escapeHtml(content)}</text>`
}

/** The `d` of a polyline through flat `[t0, v0, t1, v1, ...]` points. */
export function linePath(points: readonly number[], sx: (value: number) => number, sy: (value: number) => number): string {
  let d = ''
  for (let index = 0; index < points.length; index += 2) {
    d += `${index === 0 ? 'M' : 'L'}${sx(points[index] as number)} ${sy(points[index + 1] as number)}`
  }
  return d
}

/** A triangle pointing up (buy) or down (sell) around (x, y); grouped fills get a larger one. */
function markerPath(x: number, y: number, side: 'buy' | 'sell', count: number): string {
  const size = count > 1 ? Math.min(10, 5 + Math.log(count) * 1.4) : 5
  const tip = side === 'buy' ? -size : size
  const foot = side === 'buy' ? size * 0.8 : -size * 0.8
  return `M${x} ${round(y + tip)}L${round(x + size)} ${round(y + foot)}L${round(x - size)} ${round(y + foot)}Z`
}

/** A scatter point around (x, y): a circle, a diamond (larger: it marks a chosen point) or a cross (stroked only). */
function dotElement(x: number, y: number, dot: ChartDot): string {
  const classes = `point ${dot.shape} ${escapeHtml(dot.classes)}`
  const title = `<title>${escapeHtml(dot.title)}</title>`
  if (dot.shape === 'circle') return `<circle cx="${x}" cy="${y}" r="4.5" class="${classes}">${title}</circle>`
  if (dot.shape === 'diamond')
    return `<path d="M${x} ${round(y - 7)}L${round(x + 7)} ${y}L${x} ${round(y + 7)}L${round(x - 7)} ${y}Z" class="${classes}">${title}</path>`
  return `<path d="M${round(x - 4)} ${round(y - 4)}L${round(x + 4)} ${round(y + 4)}M${round(x + 4)} ${round(y - 4)}L${round(x - 4)} ${round(y + 4)}" class="${classes}">${title}</path>`
}

/**
 * The chart as an `<svg>` element: grid and ticks, shaded bands (`rect.band`), histogram bars (`rect.bar` with its kind
 * and `data-count`), lines (`path.line`, with a `path.area` under those that fill), guides, scatter points
 * (`.point`) and fill markers (`path.marker`, with `data-count`), each mark with its `<title>` tooltip.
 * The element carries `data-lines`, `data-markers`, `data-bars` and `data-points`: how many of each it drew.
 */
export function renderChartSvg(chart: ChartModel, label: string): string {
  const open = (counts: string) =>
    `<svg id="${chart.id}" class="plot" role="img" aria-label="${escapeHtml(label)}" viewBox="0 0 ${width} ${height}"${counts}>`
  if (chart.empty !== null) {
    return `${open(' data-lines="0" data-markers="0" data-bars="0" data-points="0"')}\n${text(left + plotWidth / 2, top + plotHeight / 2, chart.empty, 'empty', 'middle')}\n</svg>`
  }
  const { x: sx, y: sy } = chartScales(chart)
  const clampX = (value: number) => Math.max(left, Math.min(left + plotWidth, sx(value)))
  const parts: string[] = []

  const axes: string[] = []
  for (const tick of chart.y.ticks) {
    const y = sy(tick.at)
    axes.push(
      `<line x1="${left}" x2="${left + plotWidth}" y1="${y}" y2="${y}" class="grid"/>`,
      text(left - 6, round(y + 4), tick.label, 'tick', 'end'),
    )
  }
  for (const tick of chart.x.ticks) {
    const x = sx(tick.at)
    axes.push(
      `<line x1="${x}" x2="${x}" y1="${top + plotHeight}" y2="${top + plotHeight + 4}" class="axis"/>`,
      text(x, height - 10, tick.label, 'tick', 'middle'),
    )
  }
  axes.push(`<line x1="${left}" x2="${left + plotWidth}" y1="${top + plotHeight}" y2="${top + plotHeight}" class="axis"/>`)
  parts.push(`<g class="axes">${axes.join('')}</g>`)

  for (const band of chart.bands) {
    const x1 = clampX(band.from)
    const x2 = clampX(band.to)
    parts.push(
      `<rect x="${x1}" y="${top}" width="${round(Math.max(1, x2 - x1))}" height="${plotHeight}" class="band ${band.kind}"><title>${escapeHtml(band.title)}</title></rect>`,
    )
  }

  let bars = 0
  for (const bar of chart.bars) {
    if (bar.count === 0) continue
    bars++
    const x1 = sx(bar.from)
    const x2 = sx(bar.to)
    const y = sy(bar.count)
    parts.push(
      `<rect x="${round(x1 + 1)}" y="${y}" width="${round(Math.max(1, x2 - x1 - 2))}" height="${round(top + plotHeight - y)}" class="bar ${bar.kind}" data-count="${bar.count}"><title>${escapeHtml(bar.title)}</title></rect>`,
    )
  }

  // last to first, so that the first line (the strategy's) is drawn on top
  let lines = 0
  for (const line of [...chart.lines].reverse()) {
    if (line.points.length === 0) continue
    lines++
    const d = linePath(line.points, sx, sy)
    if (line.area) {
      const baseline = sy(Math.max(chart.y.min, Math.min(chart.y.max, 0)))
      const firstX = sx(line.points[0] as number)
      const lastX = sx(line.points[line.points.length - 2] as number)
      parts.push(`<path d="${d}L${lastX} ${baseline}L${firstX} ${baseline}Z" class="area ${line.name}"/>`)
    }
    parts.push(
      `<path d="${d}" class="line ${line.name}${line.stroke === 'solid' ? '' : ` ${line.stroke}`}" data-points="${line.points.length / 2}"><title>${escapeHtml(line.label)}</title></path>`,
    )
  }

  chart.guides.forEach((guide, index) => {
    let body: string
    if (guide.axis === 'y') {
      const y = sy(guide.at)
      const label =
        guide.labelAt === 'start'
          ? text(left + 4, round(y - 4), guide.label, 'guide-label')
          : text(left + plotWidth - 4, round(y - 4), guide.label, 'guide-label', 'end')
      body = `<line x1="${left}" x2="${left + plotWidth}" y1="${y}" y2="${y}"/>${label}`
    } else {
      // labels of vertical guides one under the other, left of the line near the right edge
      const x = sx(guide.at)
      const label =
        x > left + plotWidth - 120
          ? text(round(x - 4), top + 12 + 14 * index, guide.label, 'guide-label', 'end')
          : text(round(x + 4), top + 12 + 14 * index, guide.label, 'guide-label')
      body = `<line x1="${x}" x2="${x}" y1="${top}" y2="${top + plotHeight}"/>${label}`
    }
    parts.push(`<g class="guide"><title>${escapeHtml(guide.label)}</title>${body}</g>`)
  })

  if (chart.dots.length > 0) {
    parts.push(`<g class="points">\n${chart.dots.map((dot) => dotElement(sx(dot.x), sy(dot.y), dot)).join('\n')}\n</g>`)
  }

  if (chart.markers.length > 0) {
    const markers = chart.markers.map(
      (marker) =>
        `<path d="${markerPath(sx(marker.t), sy(marker.v), marker.side, marker.count)}" class="marker ${marker.side}" data-count="${marker.count}"><title>${escapeHtml(marker.title)}</title></path>`,
    )
    parts.push(`<g class="markers">\n${markers.join('\n')}\n</g>`)
  }

  const counts = ` data-lines="${lines}" data-markers="${chart.markers.length}" data-bars="${bars}" data-points="${chart.dots.length}"`
  return `${open(counts)}\n${parts.join('\n')}\n</svg>`
}
