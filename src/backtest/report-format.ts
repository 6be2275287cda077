// Number, time and text formatting for backtest reports (HTML and terminal). Deterministic: no locale, no time zone
// (UTC), ASCII digits with comma grouping, so a report is the same wherever it is rendered.

const htmlEscapes: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }

/** Escapes text for HTML element content and quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => htmlEscapes[character] as string)
}

/** JSON safe inside `<script type="application/json">`: no `<`, `>` or `&` that could close the element. */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029')
}

/** `1234567.891` → `1,234,567.89`; never `-0.00`. */
export function formatAmount(value: number, decimals = 2): string {
  if (!Number.isFinite(value)) return String(value)
  const fixed = Math.abs(value).toFixed(decimals)
  const [whole = '0', part] = fixed.split('.')
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',')
  const body = part === undefined ? grouped : `${grouped}.${part}`
  return value < 0 && /[1-9]/.test(fixed) ? `-${body}` : body
}

/** With an explicit sign: `+12.30`, `-4.00`, `0.00`. */
export function formatSigned(value: number, decimals = 2): string {
  const body = formatAmount(value, decimals)
  return value > 0 && /[1-9]/.test(body) ? `+${body}` : body
}

/** A fraction as a percentage: `0.1234` → `12.34 %`. */
export function formatPercent(fraction: number, decimals = 2): string {
  return `${formatAmount(fraction * 100, decimals)} %`
}

/** A signed fraction as a percentage: `+12.34 %`. */
export function formatSignedPercent(fraction: number, decimals = 2): string {
  return `${formatSigned(fraction * 100, decimals)} %`
}

/** Basis points with one decimal: `3.2 bps`. */
export function formatBps(bps: number): string {
  return `${formatAmount(bps, 1)} bps`
}

/** A price with the precision its size needs: 2 decimals from 1,000, 4 from 1, else 6 significant digits. */
export function formatPrice(price: number): string {
  const magnitude = Math.abs(price)
  if (magnitude >= 1000) return formatAmount(price, 2)
  if (magnitude >= 1) return formatAmount(price, 4)
  if (magnitude === 0) return '0'
  const decimals = Math.min(12, 5 - Math.floor(Math.log10(magnitude)))
  return formatAmount(price, decimals)
}

/** A token amount: as a price, but trailing zeros after the point dropped (`1.5`, `0.000123`). */
export function formatTokenAmount(amount: number): string {
  const text = formatPrice(amount)
  return text.includes('.') ? text.replace(/\.?0+$/, '') : text
}

/** Short axis labels: `950`, `12.5k`, `3.1M`, `0.0042`. */
export function formatCompact(value: number): string {
  const magnitude = Math.abs(value)
  const units: [number, string][] = [
    [1e12, 'T'],
    [1e9, 'B'],
    [1e6, 'M'],
    [1e3, 'k'],
  ]
  for (const [size, suffix] of units) {
    if (magnitude >= size * 10) return `${trimZeros((value / size).toFixed(1))}${suffix}`
  }
  if (magnitude >= 100) return trimZeros(value.toFixed(0))
  if (magnitude >= 1) return trimZeros(value.toFixed(2))
  if (magnitude === 0) return '0'
  return trimZeros(value.toPrecision(2))
}

function trimZeros(text: string): string {
  return text.includes('.') ? text.replace(/\.?0+$/, '') : text
}

/** `2024-03-01 14:05` (UTC). */
export function formatTime(t: number): string {
  return new Date(t).toISOString().slice(0, 16).replace('T', ' ')
}

/** `2024-03-01` (UTC). */
export function formatDate(t: number): string {
  return new Date(t).toISOString().slice(0, 10)
}

/** `30 d 4 h`, `5 h 12 min`, `45 s`. */
export function formatDuration(ms: number): string {
  const seconds = Math.round(ms / 1000)
  const days = Math.floor(seconds / 86_400)
  const hours = Math.floor((seconds % 86_400) / 3600)
  const minutes = Math.floor((seconds % 3600) / 60)
  if (days > 0) return hours > 0 ? `${days} d ${hours} h` : `${days} d`
  if (hours > 0) return minutes > 0 ? `${hours} h ${minutes} min` : `${hours} h`
  if (minutes > 0) return `${minutes} min`
  return `${seconds} s`
}

/** `{ COMPLETED: 12, EXPIRED: 1 }` → `12 COMPLETED, 1 EXPIRED` (largest first); `none` when empty. */
export function formatCounts(counts: Record<string, number>): string {
  const entries = Object.entries(counts).filter(([, value]) => value > 0)
  if (entries.length === 0) return 'none'
  entries.sort(([nameA, a], [nameB, b]) => b - a || (nameA < nameB ? -1 : nameA > nameB ? 1 : 0))
  return entries.map(([name, value]) => `${formatAmount(value, 0)} ${name}`).join(', ')
}

/** Decimals that show values of this size (a start value) to about five significant digits, at least 2. */
export function valueDecimals(reference: number): number {
  const magnitude = Math.abs(reference)
  if (!(magnitude > 0)) return 2
  return Math.max(2, Math.min(8, 4 - Math.floor(Math.log10(magnitude))))
}

/** A ratio (Sharpe, Sortino, Calmar, profit factor) with two decimals: `1.23`, `-0.40`. */
export function formatRatio(value: number): string {
  return formatAmount(value, 2)
}

/**
 * A signed return as a percentage, with fewer decimals as it grows: `+3.18 %`, `+412.5 %`, `+1,234,567 %` (an
 * annualised return of a short run can be that large).
 */
export function formatReturn(fraction: number): string {
  const percent = Math.abs(fraction * 100)
  return formatSignedPercent(fraction, percent >= 1000 ? 0 : percent >= 100 ? 1 : 2)
}

/** The tone of a signed amount shown with `decimals`: `flat` when it would print as zero. */
export function signClass(value: number, decimals: number): 'pos' | 'neg' | 'flat' {
  if (Math.abs(value) < 0.5 * 10 ** -decimals) return 'flat'
  return value > 0 ? 'pos' : 'neg'
}

/** What a report shows for a figure the result could not give (HTML): a dash, with why as its tooltip. */
export function notAvailable(why: string): string {
  return `<span class="na" title="${escapeHtml(why)}">–</span>`
}
