import type { SeriesPoint } from './backtest-result.js'

export type TimeRange = { from: number; to: number }

/**
 * Thins a time-ordered series for a chart `buckets` pixels wide: per pixel column it keeps the first, lowest, highest
 * and last point, in time order (M4). The polyline through them covers the same pixels as the full series, so spikes
 * survive; at most 4 × buckets points come out. A series that is already small enough comes back as a copy.
 */
export function downsampleSeries(points: readonly SeriesPoint[], buckets: number, range?: TimeRange): SeriesPoint[] {
  if (!Number.isInteger(buckets) || buckets < 1) throw new RangeError(`buckets must be a positive integer, got ${buckets}`)
  if (points.length <= 4 * buckets) return points.map(([t, value]) => [t, value])
  const first = points[0] as SeriesPoint
  const last = points[points.length - 1] as SeriesPoint
  const from = range?.from ?? first[0]
  const span = Math.max(1, (range?.to ?? last[0]) - from)
  const kept: SeriesPoint[] = []
  let bucket = -1
  let firstIndex = 0
  let lowIndex = 0
  let highIndex = 0
  let lastIndex = 0
  const flush = () => {
    const indices = [firstIndex, lowIndex, highIndex, lastIndex].sort((a, b) => a - b)
    let previous = -1
    for (const index of indices) {
      if (index === previous) continue
      previous = index
      const [t, value] = points[index] as SeriesPoint
      kept.push([t, value])
    }
  }
  for (let index = 0; index < points.length; index++) {
    const [t, value] = points[index] as SeriesPoint
    const at = Math.min(buckets - 1, Math.max(0, Math.floor(((t - from) / span) * buckets)))
    if (at !== bucket) {
      if (bucket >= 0) flush()
      bucket = at
      firstIndex = lowIndex = highIndex = lastIndex = index
      continue
    }
    lastIndex = index
    if (value < (points[lowIndex] as SeriesPoint)[1]) lowIndex = index
    if (value > (points[highIndex] as SeriesPoint)[1]) highIndex = index
  }
  flush()
  return kept
}
