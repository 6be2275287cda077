import { readFileSync, writeFileSync } from 'node:fs'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import { Queue, QueueEvents } from 'bullmq'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createQueueExecutor } from '../../../src/backtest/optimize/queue-executor.js'
import { QueueConnectionError } from '../../../src/backtest/optimize/queue-redis.js'
import { parseQueueUrl } from '../../../src/backtest/optimize/queue-url.js'
import { createSequentialExecutor, type TrialResult, type TrialSpec } from '../../../src/backtest/optimize/trial.js'
import { trialQueueName } from '../../../src/backtest/optimize/trial-job.js'
import { packRecordedQuotes } from '../../../src/backtest/quote-store.js'
import { type DeltaflowWorker, startDeltaflowWorker } from '../../helpers/deltaflow-worker.js'
import { type RedisServer, startRedisServer } from '../../helpers/redis-server.js'
import { createTempDirectory } from '../../helpers/temp-directory.js'
import { exampleConfigs, weth } from '../fixtures/backtest-inputs.js'

// The queue executor against `deltaflow worker` processes (the compiled CLI, as users run it) on a redis-server of the
// test's own. The workers hold a trial's lock for 2 s and look for expired ones every second, so that a killed
// worker's trial is back on the queue within a few seconds.

const sampleQuoteSet = fileURLToPath(new URL('../../fixtures/quotes/ethusdt-sample.jsonl.gz', import.meta.url))
const { version } = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }
const hourMs = 3_600_000

const directory = createTempDirectory('deltaflow-queue-executor-')
let redis: RedisServer
let quotes = ''
let start = 0
let sequential: TrialResult[] = []
const workers: DeltaflowWorker[] = []
let queue: Queue
let events: QueueEvents

/** Fast stall detection, and a cache of the test's own (unused while the workers see the optimiser's path). */
const workerFlags = () => ['--lock-duration', '2', '--stalled-interval', '1', '--cache', directory.path('worker-cache')]

/** 100 ladder candidates on windows of half an hour to 1.5 hours of the 4-hour sample: ~10–40 ms of backtest each. */
function ladderSpecs(count = 100): TrialSpec[] {
  return Array.from({ length: count }, (_, index) => ({
    id: `00000:is0:${String(index).padStart(5, '0')}`,
    configFile: `${exampleConfigs}ladder.yaml`,
    overrides: [
      { path: 'strategies.0.config.lowerPrice', value: String(1900 + (index % 10) * 10) },
      { path: 'strategies.0.config.upperPrice', value: String(2040 + Math.floor(index / 10) * 10) },
      { path: 'strategies.0.config.levels', value: String(2 + (index % 5)) },
    ],
    quotes,
    from: start + (index % 3) * (hourMs / 2),
    to: start + (index % 3) * (hourMs / 2) + (1 + (index % 3)) * (hourMs / 2),
    seed: 1 + (index % 4),
  }))
}

beforeAll(async () => {
  redis = await startRedisServer()
  quotes = directory.path('sample.sqlite')
  const packed = await packRecordedQuotes({ input: sampleQuoteSet, output: quotes })
  start = packed.firstTime ?? 0
  const connection = { host: '127.0.0.1', port: redis.port }
  queue = new Queue(trialQueueName, { connection })
  events = new QueueEvents(trialQueueName, { connection })
  // What a local run gives, to compare with (while the workers start).
  const [first, second, local] = await Promise.all([
    startDeltaflowWorker(redis.url, workerFlags()),
    startDeltaflowWorker(redis.url, workerFlags()),
    createSequentialExecutor().run(ladderSpecs()),
    events.waitUntilReady(),
  ])
  workers.push(first, second)
  sequential = local
}, 60_000)

afterAll(async () => {
  await Promise.all(workers.map((worker) => worker.stop('SIGKILL')))
  await Promise.all([queue?.close(), events?.close()])
  await redis?.stop()
  directory.cleanup()
})

/** Waits until `worker` runs a trial, freezes it and checks it still does (its answer cannot be under way), then kills it. */
async function killMidTrial(worker: DeltaflowWorker): Promise<string> {
  for (;;) {
    const active = await queue.getActive()
    if (active.some((job) => job.processedBy === worker.name)) {
      process.kill(worker.pid, 'SIGSTOP')
      await sleep(150)
      const held = (await queue.getActive()).find((job) => job.processedBy === worker.name)
      if (held?.id) {
        process.kill(worker.pid, 'SIGKILL')
        return held.id
      }
      process.kill(worker.pid, 'SIGCONT')
    }
    await sleep(5)
  }
}

describe('createQueueExecutor with deltaflow worker processes', () => {
  it('refuses trials for another deltaflow version: each comes back failed, naming both versions', async () => {
    const executor = createQueueExecutor({ address: parseQueueUrl(redis.url), version: '0.0.0-other' })
    try {
      const results = await executor.run(ladderSpecs(2))
      expect(results.map((result) => result.error)).toEqual([
        expect.stringMatching(new RegExp(`runs deltaflow ${version.replaceAll('.', '\\.')}, the optimiser 0\\.0\\.0-other`)),
        expect.stringMatching(/the optimiser 0\.0\.0-other/),
      ])
    } finally {
      await executor.close()
    }
  })

  it('fails a trial whose strategy plugin is not at its path on the worker, naming the path', async () => {
    const config = directory.path('plugin-elsewhere.yaml')
    const plugin = directory.path('plugins/absent-here.ts')
    writeFileSync(
      config,
      JSON.stringify({
        mode: 'paper',
        backtest: { balances: { [`1:${weth.address}`]: '1000000000000000000' } },
        strategies: [{ name: 'absent', use: plugin, config: {} }],
      }),
    )
    const executor = createQueueExecutor({ address: parseQueueUrl(redis.url), version })
    try {
      const [result] = await executor.run([{ ...(ladderSpecs(1)[0] as TrialSpec), configFile: config }])
      expect(result?.error).toMatch(/strategies\.0\.use: cannot load strategy .*: no file at /)
      expect(result?.error).toContain(`no file at ${plugin}`)
    } finally {
      await executor.close()
    }
  })

  it('loses nothing when a worker is killed mid-trial: 100 trials, each counted once, as a local run gives them', async () => {
    const specs = ladderSpecs()
    const executor = createQueueExecutor({ address: parseQueueUrl(redis.url), version })
    const heard: string[] = []
    const stalled: string[] = []
    events.on('stalled', ({ jobId }) => stalled.push(jobId))
    try {
      const running = executor.run(specs, (result) => heard.push(result.id))
      const victim = workers[0] as DeltaflowWorker
      const killedJob = await killMidTrial(victim)
      expect(await victim.exited).toBe('SIGKILL')
      const results = await running
      expect(results).toHaveLength(100)
      expect(new Set(results.map((result) => result.id)).size).toBe(100)
      expect(results.map((result) => result.id)).toEqual(specs.map((spec) => spec.id))
      expect([...heard].sort()).toEqual(specs.map((spec) => spec.id))
      expect(results).toEqual(sequential)
      // The killed worker's trial went back to the queue through BullMQ's stalled-job check, and was run by the other.
      expect(stalled).toContain(killedJob)
    } finally {
      await executor.close()
    }
    // The run left none of its jobs behind.
    expect(await queue.getJobCounts('wait', 'active', 'completed', 'failed', 'delayed')).toEqual({
      wait: 0,
      active: 0,
      completed: 0,
      failed: 0,
      delayed: 0,
    })
  }, 60_000)

  it('puts a trial back on the queue when its worker gets a second stop signal, and exits cleanly', async () => {
    const releasing = await startDeltaflowWorker(redis.url, workerFlags())
    workers.push(releasing)
    const specs = ladderSpecs(20)
    const executor = createQueueExecutor({ address: parseQueueUrl(redis.url), version })
    try {
      const running = executor.run(specs)
      for (;;) {
        const active = await queue.getActive()
        if (active.some((job) => job.processedBy === releasing.name)) {
          process.kill(releasing.pid, 'SIGSTOP')
          await sleep(150)
          if ((await queue.getActive()).some((job) => job.processedBy === releasing.name)) break
          process.kill(releasing.pid, 'SIGCONT')
        }
        await sleep(5)
      }
      // Two stop signals while frozen: the first stops taking trials, the second gives the running one back.
      process.kill(releasing.pid, 'SIGINT')
      process.kill(releasing.pid, 'SIGTERM')
      process.kill(releasing.pid, 'SIGCONT')
      expect(await releasing.exited).toBe(0)
      expect(releasing.lines.some((line) => line.includes('trial released'))).toBe(true)
      expect(await running).toEqual(sequential.slice(0, 20))
    } finally {
      await executor.close()
    }
  }, 60_000)
})

describe('createQueueExecutor without its Redis', () => {
  it('fails the run, naming host:port, when Redis goes away while the run starts (connecting, storing, queueing)', async () => {
    // A quote set large enough that storing it is still under way when Redis stops (no worker reads it).
    const large = directory.path('large.jsonl')
    writeFileSync(large, Buffer.alloc(16 * 2 ** 20, 0x20))
    // Stopped this long after the run began: within connecting, storing the files and adding the jobs.
    for (const delayMs of [0, 40, 120]) {
      const doomed = await startRedisServer()
      const executor = createQueueExecutor({ address: parseQueueUrl(doomed.url), version, giveUpAfterMs: 1_000 })
      try {
        const running = executor.run(ladderSpecs(2).map((spec) => ({ ...spec, quotes: large })))
        running.catch(() => {})
        await sleep(delayMs)
        await doomed.stop()
        const failure = await Promise.race([running.catch((error: unknown) => error), sleep(10_000).then(() => 'still running')])
        expect(failure, `Redis stopped ${delayMs} ms into the run`).toBeInstanceOf(QueueConnectionError)
        expect((failure as Error).message).toMatch(new RegExp(`(lost|cannot use) the queue's Redis at 127\\.0\\.0\\.1:${doomed.port}`))
        // Closing does not wait for a Redis that is gone.
        expect(await Promise.race([executor.close().then(() => 'closed'), sleep(5_000).then(() => 'close still waiting')])).toBe('closed')
      } finally {
        await executor.close()
        await doomed.stop()
      }
    }
  }, 60_000)

  it('fails the run, naming host:port, when Redis is gone for longer than it waits', async () => {
    const doomed = await startRedisServer()
    const executor = createQueueExecutor({ address: parseQueueUrl(doomed.url), version, giveUpAfterMs: 1_000 })
    try {
      // No worker listens: the trials wait in the queue until Redis goes away.
      const running = executor.run(ladderSpecs(2))
      await sleep(300)
      await doomed.stop()
      const started = performance.now()
      const failure = await running.catch((error: unknown) => error)
      expect(failure).toBeInstanceOf(QueueConnectionError)
      expect((failure as Error).message).toContain(`lost the queue's Redis at 127.0.0.1:${doomed.port} for more than 1 s`)
      expect(performance.now() - started).toBeLessThan(5_000)
    } finally {
      await executor.close()
    }
  })
})
