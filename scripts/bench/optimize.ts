import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createQueueExecutor } from '../../src/backtest/optimize/queue-executor.js'
import { parseQueueUrl } from '../../src/backtest/optimize/queue-url.js'
import { createSequentialExecutor, type TrialExecutor, type TrialResult, type TrialSpec } from '../../src/backtest/optimize/trial.js'
import { createWorkerPoolExecutor } from '../../src/backtest/optimize/worker-pool.js'
import { packRecordedQuotes } from '../../src/backtest/quote-store.js'
import { canonicalJson } from '../../src/domain/intents/intent-id.js'
import { type DeltaflowWorker, startDeltaflowWorker } from '../../test/helpers/deltaflow-worker.js'
import { type RedisServer, startRedisServer } from '../../test/helpers/redis-server.js'
import { type BenchResult, median, summarize } from './summary.js'
import { threadScaling } from './thread-scaling.js'

const quoteSet = fileURLToPath(new URL('../../test/fixtures/quotes/ethusdt-strategies.jsonl.gz', import.meta.url))
const ladderConfig = fileURLToPath(new URL('../../config/ladder.yaml', import.meta.url))

/**
 * Trials per second of the optimiser's executors on the same trials, in one run: in this process one after another
 * (the sequential executor), then on the worker pool with 1 and with 2 worker threads. A trial is the ladder example
 * (config/ladder.yaml) over the whole recorded ETH set (test/fixtures/quotes/ethusdt-strategies.jsonl.gz: 2 days,
 * 41,472 quotes, packed to a temp .sqlite), one candidate each: 32 lower prices × 2 level counts × 2 spacings (a
 * trial takes 25–40 ms: a pass of fewer trials is over in a second, and its tail, one worker finishing the last
 * trial alone, weighs on the figures).
 * Each executor first makes one pass over the trials in which each thread loads the modules and opens the quote set
 * (reported with its start-up included), then warms up until each of its threads has run `warmUpPasses` × 128
 * trials (8 × 128 by default, the steady state of a search of a few thousand trials: the JIT goes on optimising
 * trial code for a thousand trials, the many functions that run once per trial getting hot only then; after 384
 * trials a thread still spends 70–190 ms per pass of 128 compiling on a background thread, which a lone worker runs
 * on the idle core and two workers must share theirs with; with the same number of passes, a
 * thread of the 2-worker pool would be timed colder than the 1-worker one), then `runs` timed passes, the executors
 * taking turns (5 by default: the 2-core machine's speed drifts between runs, and each run's own speed-up is printed
 * beside the speed-up of the medians).
 * The pool's overhead per trial is its 1-worker time per trial minus the sequential one's (the structured clone of
 * spec and result, the message round trip, the scheduling). Beside each rate, the CPU time per trial and the cores
 * the process kept busy (CPU time of all its threads / wall time): on a machine busy with other work, 2 workers get
 * less than 2 cores, and that shows there. Last, the queue (`optimize --queue`): a redis-server of the bench's own and
 * 2 `deltaflow worker` processes (from the sources, 1 thread each); its overhead per trial is its time per trial minus
 * the 2-thread pool's (the side store, the jobs' round trips through Redis, the workers' polling). The workers' CPU
 * is not this process's: the queue's row has no CPU figures. Every executor's results must be identical.
 * The baseline, measured first in the same run (thread-scaling.ts): the machine's own speed-up from 1 to 2 threads for
 * a loop that only computes and for one that allocates short-lived objects, as a trial does.
 */
export async function benchOptimize({ runs = 5, warmUpPasses = 8 }: { runs?: number; warmUpPasses?: number } = {}): Promise<BenchResult> {
  const directory = mkdtempSync(join(tmpdir(), 'deltaflow-bench-optimize-'))
  const executors: { name: string; executor: TrialExecutor; threads: number }[] = [
    { name: 'sequential', executor: createSequentialExecutor(), threads: 1 },
    { name: 'pool 1 worker', executor: createWorkerPoolExecutor({ workers: 1 }), threads: 1 },
    { name: 'pool 2 workers', executor: createWorkerPoolExecutor({ workers: 2 }), threads: 2 },
  ]
  let redis: RedisServer | undefined
  const queueWorkers: DeltaflowWorker[] = []
  try {
    redis = await startRedisServer()
    const url = redis.url
    queueWorkers.push(...(await Promise.all([0, 1].map(() => startDeltaflowWorker(url, [], { DELTAFLOW_FROM_SOURCE: '1' })))))
    const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
    executors.push({ name: 'queue 2 workers', executor: createQueueExecutor({ address: parseQueueUrl(url), version }), threads: 2 })
    const quotes = join(directory, 'ethusdt-strategies.sqlite')
    const packed = await packRecordedQuotes({ input: quoteSet, output: quotes, keepAnswers: false })
    const specs = ladderSpecs(quotes, packed.firstTime ?? 0, (packed.lastTime ?? 0) + 1)
    const notes: Record<string, string> = {
      target: '2 workers >= 1.8 x 1 worker',
      trials: `${specs.length} ladder candidates over ${packed.quotes} quotes (2 days) each`,
    }
    // The baseline: what 2 threads give over 1 on this machine for a loop that computes and one that allocates.
    const scaling = await threadScaling()
    notes['this machine, 2 threads vs 1'] =
      `${scaling.compute.toFixed(2)} x computing, ${scaling.allocating.toFixed(2)} x allocating short-lived objects (the same loop in each thread)`
    const seconds = new Map<string, number[]>()
    const cpuSeconds = new Map<string, number[]>()
    let expected: string | undefined
    for (const { name, executor, threads } of executors) {
      const started = performance.now()
      await executor.run(specs)
      notes[`${name} first pass`] = `${(specs.length / ((performance.now() - started) / 1000)).toFixed(2)} trials/s (start-up included)`
      for (let pass = 1; pass < warmUpPasses * threads; pass++) await executor.run(specs)
    }
    for (let run = 0; run < runs; run++) {
      for (const { name, executor } of executors) {
        const started = performance.now()
        const cpu = process.cpuUsage()
        const results = await executor.run(specs)
        seconds.set(name, [...(seconds.get(name) ?? []), (performance.now() - started) / 1000])
        const used = process.cpuUsage(cpu)
        cpuSeconds.set(name, [...(cpuSeconds.get(name) ?? []), (used.user + used.system) / 1e6])
        const failed = results.find((result) => result.error !== undefined)
        if (failed) throw new Error(`bench optimize: trial ${failed.id} failed on the ${name} executor: ${failed.error}`)
        const json = resultsJson(results)
        expected ??= json
        if (json !== expected) throw new Error(`bench optimize: the ${name} executor's results differ from the sequential ones`)
      }
    }
    const rateOf = (name: string) => specs.length / median(seconds.get(name) ?? [])
    for (const { name } of executors) {
      if (name === 'queue 2 workers') {
        notes[name] = `${rateOf(name).toFixed(2)} trials/s (2 \`deltaflow worker\` processes, 1 thread each)`
        continue
      }
      const wall = median(seconds.get(name) ?? [])
      const cpu = median(cpuSeconds.get(name) ?? [])
      notes[name] =
        `${rateOf(name).toFixed(2)} trials/s (${((cpu / specs.length) * 1000).toFixed(0)} ms CPU per trial, ${(cpu / wall).toFixed(2)} cores busy)`
    }
    notes['speed-up 2 vs 1 worker'] = `${(rateOf('pool 2 workers') / rateOf('pool 1 worker')).toFixed(2)} x (goal >= 1.8)`
    // Each run's 2-worker pass against the 1-worker pass just before it: the machine's drift between runs shows here.
    const one = seconds.get('pool 1 worker') ?? []
    const two = seconds.get('pool 2 workers') ?? []
    notes['speed-up per run'] = one.map((value, run) => `${(value / (two[run] ?? Number.NaN)).toFixed(2)}`).join(', ')
    notes['pool overhead per trial'] = `${((1 / rateOf('pool 1 worker') - 1 / rateOf('sequential')) * 1000).toFixed(1)} ms`
    notes['queue overhead per trial'] =
      `${((1 / rateOf('queue 2 workers') - 1 / rateOf('pool 2 workers')) * 1000).toFixed(1)} ms (against the 2-thread pool)`
    notes['results identical'] = expected === undefined ? 'no runs' : 'yes'
    return summarize(
      'optimize: ladder trials per second on the worker pool with 2 workers',
      'trials/s',
      (seconds.get('pool 2 workers') ?? []).map((value) => specs.length / value),
      notes,
    )
  } finally {
    await Promise.all(executors.map(({ executor }) => executor.close()))
    await Promise.all(queueWorkers.map((worker) => worker.stop()))
    await redis?.stop()
    rmSync(directory, { recursive: true, force: true })
  }
}

function ladderSpecs(quotes: string, from: number, to: number): TrialSpec[] {
  const specs: TrialSpec[] = []
  for (const spacing of ['linear', 'geometric']) {
    for (const levels of [3, 5]) {
      for (let step = 0; step < 32; step++) {
        const lower = 1850 + step * 6
        specs.push({
          id: String(specs.length).padStart(5, '0'),
          configFile: ladderConfig,
          overrides: [
            { path: 'strategies.0.config.lowerPrice', value: String(lower) },
            { path: 'strategies.0.config.upperPrice', value: String(lower + 200) },
            { path: 'strategies.0.config.levels', value: String(levels) },
            { path: 'strategies.0.config.spacing', value: spacing },
          ],
          quotes,
          from,
          to,
          seed: 1,
        })
      }
    }
  }
  return specs
}

/** Keys sorted: a queue's results come back through a schema, their keys in its order. */
function resultsJson(results: readonly TrialResult[]): string {
  return canonicalJson([...results].sort((left, right) => left.id.localeCompare(right.id)))
}
