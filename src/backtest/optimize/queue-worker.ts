import { hostname } from 'node:os'
import { type Job, WaitingError, Worker } from 'bullmq'
import type { Logger } from '../../log/logger.js'
import { openQueueRedis } from './queue-redis.js'
import { createQueueTrialInputs } from './queue-trial-inputs.js'
import type { QueueAddress } from './queue-url.js'
import type { TrialResult, TrialSpec } from './trial.js'
import { trialJobSchema, trialQueueName } from './trial-job.js'
import { createWorkerPoolExecutor, WorkerPoolError } from './worker-pool.js'

export type StartQueueWorkerParameters = {
  address: QueueAddress
  /** deltaflow's version: trials queued by another version are refused (their results could differ). */
  version: string
  /** Trials at once, each on its own worker thread (a whole number ≥ 1). */
  concurrency: number
  /** Where fetched quote sets are kept, by hash. */
  cacheDirectory: string
  /** Use the optimiser's own path of a quote set when this machine has it with the same hash. */
  sharedPaths: boolean
  /** How long a trial's lock lasts without renewal (ms): a worker dead for longer loses its trials to others. */
  lockDurationMs: number
  /** How often this worker looks for trials whose lock expired (ms): they go back to the queue. */
  stalledIntervalMs: number
  logger: Logger
  /** The name BullMQ records on the jobs this worker takes (default: host:pid). */
  name?: string
  connectTimeoutMs?: number
}

export type QueueWorker = {
  name: string
  /**
   * Stops taking trials and closes. `finish`: the trials running finish first. `release`: they go back to the queue
   * at once (another worker runs them from the start), also when a `finish` stop is already under way.
   */
  stop(mode: 'finish' | 'release'): Promise<void>
  /** Rejects when the worker cannot go on (its worker threads cannot run trials); it has released its trials. */
  failed: Promise<never>
}

/**
 * Takes trials from the queue of queue-executor.ts and runs them, until stopped: each on a worker thread of a pool of
 * `concurrency` threads (worker-pool.ts: the thread keeps its quote sets open between trials, and this process's
 * event loop stays free to renew the trials' locks however long a backtest runs). Quote sets and configs come by
 * content (queue-trial-inputs.ts).
 *
 * - A trial's answer is its TrialResult, also when it failed (a bad candidate, a quote set whose bytes do not match
 *   its hash or that left the store, a trial queued by another deltaflow version): the optimiser counts it as failed.
 * - A worker that dies (killed, power lost) holds its trials' locks no longer than `lockDurationMs`; the stalled-job
 *   check of the other workers (BullMQ's) then gives them to another worker.
 *
 * Throws QueueConnectionError when the Redis cannot be reached at the start; afterwards a lost Redis is waited for.
 */
export async function startQueueWorker(parameters: StartQueueWorkerParameters): Promise<QueueWorker> {
  const { address, version, concurrency, logger } = parameters
  const name = parameters.name ?? `${hostname()}:${process.pid}`
  const redis = await openQueueRedis({ address, ...(parameters.connectTimeoutMs ? { connectTimeoutMs: parameters.connectTimeoutMs } : {}) })
  // While Redis is away every reconnection attempt fails the same way: said once, and once more when it answers.
  let trouble = ''
  const troubled = (error: unknown) => {
    if (messageOf(error) === trouble) return
    trouble = messageOf(error)
    logger.warn({ err: error }, 'queue error (BullMQ and the side store reconnect by themselves)')
  }
  redis.on('error', troubled)
  redis.on('ready', () => {
    if (trouble === '') return
    trouble = ''
    logger.info({ queue: address.display }, 'the queue’s Redis answers again')
  })
  const pool = createWorkerPoolExecutor({ workers: concurrency })
  const inputs = createQueueTrialInputs({
    redis,
    where: address.display,
    cacheDirectory: parameters.cacheDirectory,
    sharedPaths: parameters.sharedPaths,
  })
  let fail: (error: unknown) => void = () => {}
  const failed = new Promise<never>((_resolve, reject) => {
    fail = reject
  })
  failed.catch(() => {})
  let stopping: Promise<void> | undefined

  async function processTrial(job: Job, token: string | undefined, signal: AbortSignal | undefined): Promise<TrialResult> {
    const parsed = trialJobSchema.safeParse(job.data)
    if (!parsed.success) throw new Error(`job ${job.id} is not a deltaflow trial: ${parsed.error.issues[0]?.message ?? 'unreadable'}`)
    const data = parsed.data
    const id = data.spec.id
    const log = logger.child({ run: data.run, trial: id })
    if (data.version !== version) {
      return {
        id,
        tradesHash: '',
        error: `the worker ${name} runs deltaflow ${version}, the optimiser ${data.version}: run one version everywhere`,
      }
    }
    let spec: TrialSpec
    try {
      const [quotes, configText] = await Promise.all([inputs.quoteFile(data), inputs.configText(data)])
      spec = { ...data.spec, quotes, configText }
    } catch (error) {
      log.warn({ err: error }, 'trial inputs unavailable')
      return { id, tradesHash: '', error: `the worker ${name} could not get the trial's inputs: ${messageOf(error)}` }
    }
    log.debug('trial started')
    const released = new Promise<'released'>((resolve) => {
      if (signal?.aborted) resolve('released')
      signal?.addEventListener('abort', () => resolve('released'), { once: true })
    })
    let outcome: TrialResult | 'released'
    try {
      outcome = await Promise.race([pool.run([spec]).then((results) => results[0] as TrialResult), released])
    } catch (error) {
      // The worker threads cannot run trials at all: this worker gives its trials back and stops.
      if (!(error instanceof WorkerPoolError)) throw error
      fail(error)
      outcome = 'released'
    }
    if (outcome === 'released') {
      if (token !== undefined) await job.moveToWait(token)
      log.info('trial released: back in the queue for another worker')
      throw new WaitingError()
    }
    log.debug({ failed: outcome.error !== undefined }, 'trial done')
    return outcome
  }

  const worker = new Worker(trialQueueName, processTrial, {
    connection: { ...address.redis },
    name,
    concurrency,
    lockDuration: parameters.lockDurationMs,
    stalledInterval: parameters.stalledIntervalMs,
    // A trial whose worker died twice is failed rather than handed out forever (it may be what kills them).
    maxStalledCount: 1,
  })
  worker.on('error', troubled)
  worker.on('stalled', (jobId: string) => logger.info({ job: jobId }, 'a trial whose worker stopped answering goes back to the queue'))
  await worker.waitUntilReady()

  async function stop(mode: 'finish' | 'release'): Promise<void> {
    if (mode === 'release') worker.cancelAllJobs('released')
    stopping ??= (async () => {
      await worker.close()
      await Promise.all([pool.close(), redis.quit().catch(() => redis.disconnect())])
    })()
    return stopping
  }
  failed.catch(() => stop('release'))
  return { name, stop, failed }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
