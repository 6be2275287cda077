export type BenchResult = {
  name: string
  unit: string
  runs: number
  min: number
  median: number
  p99: number
  max: number
  notes: Record<string, string>
}

export function summarize(name: string, unit: string, samples: readonly number[], notes: Record<string, string> = {}): BenchResult {
  const sorted = [...samples].sort((a, b) => a - b)
  const at = (quantile: number) => sorted[Math.min(sorted.length - 1, Math.floor(quantile * sorted.length))] ?? Number.NaN
  return { name, unit, runs: sorted.length, min: at(0), median: at(0.5), p99: at(0.99), max: at(1), notes }
}

export function formatBench(result: BenchResult): string {
  const figure = (value: number) => value.toFixed(value < 10 ? 2 : 0)
  const notes = Object.entries(result.notes)
    .map(([key, value]) => `${key} ${value}`)
    .join(', ')
  return `${result.name}: median ${figure(result.median)} ${result.unit}, p99 ${figure(result.p99)}, min ${figure(result.min)}, max ${figure(result.max)} (${result.runs} runs${notes ? `; ${notes}` : ''})`
}

/** The middle sample (the upper middle of an even count), NaN for none. */
export function median(samples: readonly number[]): number {
  const sorted = [...samples].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN
}
