import { reportChartScript } from './report-chart-script.js'
import type { ChartModel, DrawnCount } from './report-charts.js'
import { escapeHtml, formatAmount, jsonForScript, notAvailable } from './report-format.js'
import { reportStyles } from './report-styles.js'
import { renderChartSvg } from './report-svg.js'

// The frame every HTML report shares (the backtest's, the optimiser's): the page itself with its inline style and
// script, and the sections both draw the same way (a chart with its caption and legend, the warnings, the key figure
// cards). Every text is escaped here; callers pass plain text.

// The page allows nothing from outside: no requests at all, only its own inline style and script.
const contentSecurityPolicy = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:"

export type RenderReportPageParameters = {
  /** The page's title, plain text. */
  title: string
  /** The sections, HTML (empty strings are left out). */
  sections: readonly string[]
  /** What the inline script reads from #report-data (the hover readouts of line charts). */
  data: { readouts: readonly unknown[] }
  /** CSS added after the shared stylesheet. */
  styles?: string
}

/** One self-contained HTML page: no request leaves it (its Content-Security-Policy refuses them all). */
export function renderReportPage({ title, sections, data, styles = '' }: RenderReportPageParameters): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${contentSecurityPolicy}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${reportStyles}${styles}</style>
</head>
<body>
<main>
${sections.filter(Boolean).join('\n')}
</main>
<script type="application/json" id="report-data">${jsonForScript(data)}</script>
<script>${reportChartScript}</script>
</body>
</html>
`
}

/** `a`, `a and b`, `a, b and c`. */
export function formatList(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`
}

export type ChartSection = {
  chart: ChartModel
  heading: string
  description: string
  /** [swatch class, label] pairs. */
  legend: [string, string][]
  /** Points drawn of each thinned line, for the caption. */
  counts: DrawnCount[]
  /** `h2` (a section of its own) or `h3` (one of several charts under a heading). */
  level?: 'h2' | 'h3'
}

/** A chart under its heading and caption, with its legend. */
export function chartSection(chart: ChartSection): string {
  const level = chart.level ?? 'h2'
  const legend = chart.legend
    .map(([swatch, label]) => `<span class="key"><span class="swatch ${swatch}" aria-hidden="true"></span>${escapeHtml(label)}</span>`)
    .join(' ')
  const thinned = chart.counts.filter((count) => count.drawn < count.points)
  const kept = 'first, lowest, highest and last per pixel column'
  const sameLength = thinned.every((count) => count.points === thinned[0]?.points)
  const drawnNote =
    thinned.length === 0
      ? ''
      : thinned.length > 1 && sameLength
        ? ` Each line drawn from ${formatAmount(thinned[0]?.points ?? 0, 0)} points (${formatList(thinned.map((count) => formatAmount(count.drawn, 0)))} kept: ${kept}).`
        : ` Drawn from ${thinned.map((count) => `${formatAmount(count.points, 0)} points (${formatAmount(count.drawn, 0)} kept: ${kept})`).join(' and ')}.`
  return `<section class="chart">
<${level}>${escapeHtml(chart.heading)}</${level}>
<p class="note">${escapeHtml(chart.description + drawnNote)}</p>
${renderChartSvg(chart.chart, chart.heading)}
<p class="legend">${legend}</p>
</section>`
}

/** The warnings a reader should see before the figures; nothing when there are none. */
export function warningsSection(warnings: readonly string[], heading = 'Read this first'): string {
  if (warnings.length === 0) return ''
  return `<section class="warnings" role="note" aria-label="Warnings">
<h2>${escapeHtml(heading)}</h2>
<ul>
${warnings.map((warning) => `<li>${escapeHtml(warning)}</li>`).join('\n')}
</ul>
</section>`
}

/** A key figure: its value (null: not available, `why` says why), a note under it, a tone (`pos`, `neg`). */
export type Card = { label: string; value: string | null; why?: string; note?: string; tone?: string }

/** The key figures as a row of cards. */
export function cardsSection(cards: readonly Card[], label = 'Key figures'): string {
  const html = cards
    .map(
      (card) =>
        `<div class="card"><span class="label">${escapeHtml(card.label)}</span><span class="value${card.tone ? ` ${card.tone}` : ''}">${
          card.value === null ? notAvailable(card.why ?? '') : escapeHtml(card.value)
        }</span>${card.note ? `<span class="note">${escapeHtml(card.note)}</span>` : ''}</div>`,
    )
    .join('\n')
  return `<section class="cards" aria-label="${escapeHtml(label)}">\n${html}\n</section>`
}
