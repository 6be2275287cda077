import { Worker } from 'node:worker_threads'
import { median } from './summary.js'

/**
 * How this machine scales JavaScript from 1 to 2 threads, the baseline of a parallel benchmark's speed-up: the same
 * loop in 1 worker thread, then in 2 at once (each doing the same work), as throughput of 2 over 1. Two loops: one that
 * computes and allocates nothing (the cores alone), one that allocates short-lived objects as a backtest does (the
 * cores plus the collector: a lone thread's young-generation collections are helped by a thread on the idle core,
 * which 2 busy threads do not have). The median of `runs`.
 */
export async function threadScaling({ runs = 3 }: { runs?: number } = {}): Promise<{ compute: number; allocating: number }> {
  const speedUp = async (kind: LoopKind, iterations: number) => {
    await loops(1, kind, iterations / 10)
    const ratios: number[] = []
    for (let run = 0; run < runs; run++) {
      const one = await loops(1, kind, iterations)
      const two = await loops(2, kind, iterations)
      ratios.push((2 * one) / two)
    }
    return median(ratios)
  }
  return { compute: await speedUp('compute', 200_000_000), allocating: await speedUp('allocating', 60_000_000) }
}

type LoopKind = 'compute' | 'allocating'

/** Wall time (ms) of `threads` worker threads each running the loop once, from the first start to the last end. */
async function loops(threads: number, kind: LoopKind, iterations: number): Promise<number> {
  const started = performance.now()
  await Promise.all(
    Array.from(
      { length: threads },
      () =>
        new Promise<void>((resolve, reject) => {
          const worker = new Worker(loopSource, { eval: true, workerData: { kind, iterations } })
          worker.once('error', reject)
          worker.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`scaling loop exited with ${code}`))))
        }),
    ),
  )
  return performance.now() - started
}

const loopSource = `
const { workerData } = require('node:worker_threads')
const { kind, iterations } = workerData
let sink = 0
if (kind === 'compute') {
  const table = new Uint32Array(4096)
  let hash = 2166136261
  for (let i = 0; i < iterations; i++) {
    hash = Math.imul(hash ^ i, 16777619)
    table[hash & 4095] += hash
    hash ^= table[(hash >>> 7) & 4095]
  }
  sink = hash
} else {
  for (let i = 0; i < iterations; i++) {
    const item = { at: i, pair: [i, i + 1], label: String(i & 1023) }
    sink += item.pair[1] + item.label.length
  }
}
if (sink === 0.5) console.log(sink)
`
