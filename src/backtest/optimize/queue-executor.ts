import { randomUUID } from 'node:crypto'
import { Job, Queue, QueueEvents } from 'bullmq'
import { Redis } from 'ioredis'
import { keptPromise } from '../../domain/kept-promise.js'
import { BaseError } from '../../errors/base.js'
import { openQueueRedis, QueueConnectionError } from './queue-redis.js'
import type { QueueAddress } from './queue-url.js'
import { type ContentReference, contentTtlSeconds, hashFile, putFileByHash, releaseFileByHash } from './redis-content-store.js'
import type { TrialExecutor, TrialResult, TrialSpec } from './trial.js'
import { type QuoteSuffix, quoteSuffixOf, type TrialJob, trialJobId, trialJobName, trialQueueName, trialResultOf } from './trial-job.js'

export type CreateQueueExecutorParameters = {
  address: QueueAddress
  /** deltaflow's version: a worker of another version refuses the trials (its results could differ). */
  version: string
  /** How long the first connection may take (ms). */
  connectTimeoutMs?: number
  /** How long a run waits for a Redis it lost before it fails (ms). */
  giveUpAfterMs?: number
  /** With no trial finished for this long, the queue is asked about every trial still out (a missed event) (ms). */
  sweepIntervalMs?: number
  /** The run's id, the prefix of its job ids (default: a random UUID). */
  run?: string
}

/** A trial the queue cannot take: its quote set's kind is not told by its name. Operational: rename or pack it. */
export class QueueExecutorError extends BaseError {
  override name = 'QueueExecutorError' as const
}

type Connected = { queue: Queue; events: QueueEvents; redis: Redis; lost: Promise<never>; clients: readonly Redis[] }

/**
 * Runs trials on `deltaflow worker` processes through a BullMQ queue on Redis (queue-worker.ts), on this machine or
 * any other that reaches the Redis.
 *
 * - Work travels by content: the config and the quote set go into the queue's side store by SHA-256 (once per file and
 *   run; a quote set already there is not sent again), each job names them by hash beside the spec.
 * - Job ids are the run's id and the trial's, so adding a trial again adds nothing. Results are kept by trial id: a
 *   second completion of a trial (its worker presumed dead, yet it finished) is ignored, as is a result for a trial
 *   this run did not ask for.
 * - A worker that dies mid-trial loses nothing: BullMQ's stalled-job check (on the other workers) puts its trial back
 *   on the queue, and another worker runs it. A trial that fails (a bad candidate, a worker of another version, a
 *   quote set that does not match its hash, a trial that stalled more often than the workers allow) comes back with
 *   `error`, as from the other executors. Results come back in the order of `specs`.
 * - The first `run` checks the Redis and fails at once, naming host:port, when it cannot be reached; a Redis lost
 *   during a run fails the run after `giveUpAfterMs`.
 * - `close` removes the run's jobs still in the queue and its claim on the stored files (deleted when no other run
 *   uses them). A run killed before it could close leaves its trials to the workers (they run them to no end); the
 *   finished jobs age out after a day (BullMQ's removeOnComplete), its stored files expire after a day.
 *
 * The trials wait in the queue until workers take them: with no worker running, `run` waits.
 *
 * @example
 * const executor = createQueueExecutor({ address: parseQueueUrl('redis://127.0.0.1:6379'), version })
 * try { results = await executor.run(specs) } finally { await executor.close() }
 */
export function createQueueExecutor({
  address,
  version,
  connectTimeoutMs = 5_000,
  giveUpAfterMs = 30_000,
  sweepIntervalMs = 10_000,
  run = randomUUID(),
}: CreateQueueExecutorParameters): TrialExecutor {
  let connected: Promise<Connected> | undefined
  let closed = false
  /** Files stored for this run, by path: each is hashed and stored once. */
  const stored = new Map<string, Promise<ContentReference>>()
  /** Jobs of this run that may still be in the queue (removed as their result arrives). */
  const outstanding = new Set<string>()
  let closing: Promise<void> | undefined
  const closedError = () => new QueueExecutorError('the queue executor is closed; create a new executor to run more trials')
  /** Rejects at close: a run still waiting stops waiting. */
  let rejectOnClose: (error: Error) => void = () => {}
  const onClose = new Promise<never>((_resolve, reject) => {
    rejectOnClose = reject
  })
  onClose.catch(() => {})

  function connect(): Promise<Connected> {
    connected ??= (async () => {
      const redis = await openQueueRedis({ address, connectTimeoutMs, giveUpAfterMs })
      const lost = new Promise<never>((_resolve, reject) => {
        // Also after close: a connection still being made then ends with it (nothing waits for `lost` any more).
        redis.once('end', () => {
          reject(
            new QueueConnectionError(
              `lost the queue's Redis at ${address.redis.host}:${address.redis.port} for more than ${giveUpAfterMs / 1000} s`,
              {
                details: { queue: address.display, run },
                hint: 'start Redis again and rerun the optimisation (trials already done are not kept)',
                errorClass: 'operational',
              },
            ),
          )
        })
      })
      lost.catch(() => {})
      // BullMQ's connections (QueueEvents blocks on its own) are ours: they reconnect on their own while Redis is away
      // (the side-store client above is the one that decides the run is lost), and are ended here whatever state they
      // are in; BullMQ's own disconnect waits for a connection that is ready, which it may never be.
      const bullClient = () => {
        const client = new Redis({ ...address.redis, maxRetriesPerRequest: null })
        client.on('error', () => {})
        return client
      }
      const clients = [bullClient(), bullClient()] as const
      const queue = new Queue(trialQueueName, { connection: clients[0] })
      const events = new QueueEvents(trialQueueName, { connection: clients[1] })
      queue.on('error', () => {})
      events.on('error', () => {})
      // Each trial waiting for its result listens for the queue's closing.
      queue.setMaxListeners(0)
      try {
        await Promise.race([Promise.all([queue.waitUntilReady(), events.waitUntilReady()]), lost, onClose])
      } catch (error) {
        // Given up (or closed) before BullMQ was ready.
        for (const client of [...clients, redis]) client.disconnect()
        throw error
      }
      return { queue, events, redis, lost, clients }
    })()
    return connected
  }

  function store(redis: Redis, file: string): Promise<ContentReference> {
    return keptPromise(stored, file, () =>
      hashFile(file).then(async (hashed) => {
        await putFileByHash(redis, { file, reference: hashed, run })
        return hashed
      }),
    )
  }

  async function jobOf(redis: Redis, spec: TrialSpec): Promise<TrialJob> {
    const suffix: QuoteSuffix | undefined = quoteSuffixOf(spec.quotes)
    if (suffix === undefined) {
      throw new QueueExecutorError(`${spec.quotes}: expected a quote store (*.sqlite) or a recording (*.jsonl, *.jsonl.gz)`, {
        errorClass: 'operational',
      })
    }
    const [config, quotes] = await Promise.all([store(redis, spec.configFile), store(redis, spec.quotes)])
    const { id, configFile, overrides, from, to, seed } = spec
    return { version, run, spec: { id, configFile, overrides, quotes: spec.quotes, from, to, seed }, config, quotes: { ...quotes, suffix } }
  }

  /**
   * A step of the run that talks to Redis: once the connection is given up, the run fails with `lost` (naming the
   * address), not with what the step's command was told ("Connection is closed."), whichever comes first.
   */
  async function whileConnected<T>({ redis, lost }: Connected, step: Promise<T>): Promise<T> {
    try {
      return await Promise.race([step, lost, onClose])
    } catch (error) {
      if (redis.status === 'end' && !closed) return lost
      throw error
    }
  }

  async function runOnQueue(specs: readonly TrialSpec[], onResult?: (result: TrialResult) => void): Promise<TrialResult[]> {
    const connection = await Promise.race([connect(), onClose])
    const { queue, events, redis, lost } = connection
    const jobs = await whileConnected(connection, Promise.all(specs.map((spec) => jobOf(redis, spec))))
    const keep = { age: contentTtlSeconds }
    const added = await whileConnected(
      connection,
      queue.addBulk(
        jobs.map((data) => {
          const jobId = trialJobId(run, data.spec.id)
          outstanding.add(jobId)
          return { name: trialJobName, data, opts: { jobId, attempts: 1, removeOnComplete: keep, removeOnFail: keep } }
        }),
      ),
    )
    const results = new Map<string, TrialResult>()
    const waiting = new Map(specs.map((spec) => [trialJobId(run, spec.id), spec.id]))
    let settleAll: () => void = () => {}
    const allSettled = new Promise<void>((resolve) => {
      settleAll = resolve
    })
    /** Sweeper ticks since the last result. */
    let quietTicks = 0
    const settle = (jobId: string, result: TrialResult) => {
      const id = waiting.get(jobId)
      // A second completion of the same trial, or one of a trial this call did not ask for: ignored.
      if (id === undefined || results.has(id)) return
      waiting.delete(jobId)
      results.set(id, result)
      quietTicks = 0
      onResult?.(result)
      outstanding.delete(jobId)
      // A job still locked (its worker presumed dead yet running) is not removed: close tries again.
      queue.remove(jobId).then(
        (removed) => {
          if (!removed) outstanding.add(jobId)
        },
        () => outstanding.add(jobId),
      )
      if (waiting.size === 0) settleAll()
    }
    for (const job of added) {
      const jobId = job.id as string
      const id = waiting.get(jobId) as string
      job.waitUntilFinished(events).then(
        (value: unknown) => settle(jobId, trialResultOf(id, value)),
        (error: unknown) => settle(jobId, failed(id, error)),
      )
    }
    // BullMQ's events are the way results arrive; should one be missed (its stream trimmed, a reconnection), the trials
    // still out are looked up once nothing has been heard for a while.
    const sweeper = setInterval(() => {
      if (++quietTicks < 2) return
      quietTicks = 0
      void sweep(queue, [...waiting.keys()], settle, (jobId) => waiting.get(jobId) as string)
    }, sweepIntervalMs / 2)
    try {
      await Promise.race([allSettled, lost, onClose])
    } finally {
      clearInterval(sweeper)
    }
    return specs.map((spec) => results.get(spec.id) as TrialResult)
  }

  return {
    async run(specs, onResult) {
      if (closed) throw closedError()
      if (specs.length === 0) return []
      return runOnQueue(specs, onResult)
    },
    close() {
      closing ??= (async () => {
        closed = true
        rejectOnClose(closedError())
        const opened = await connected?.catch(() => undefined)
        if (!opened) return
        const { queue, events, redis, clients } = opened
        const ignore = () => {}
        // The side-store client gave up on Redis: nothing can be cleaned up (the keys expire), only the sockets closed.
        const lost = redis.status === 'end'
        if (!lost) {
          // Bounded: should Redis go away now, the commands below would wait for it.
          await withinMs(5_000, async () => {
            await Promise.all([...outstanding].map((jobId) => queue.remove(jobId).catch(() => 0)))
            const references = await Promise.all([...stored.values()].map((reference) => reference.catch(() => undefined)))
            await Promise.all(
              references.flatMap((reference) =>
                reference ? [releaseFileByHash(redis, { sha256: reference.sha256, run }).catch(ignore)] : [],
              ),
            )
          })
        }
        await withinMs(lost ? 500 : 5_000, () =>
          Promise.all([
            queue.close().catch(ignore),
            events.close().catch(ignore),
            ...[...clients, redis].map((client) => client.quit().catch(ignore)),
          ]),
        )
        for (const client of [...clients, redis]) client.disconnect()
      })()
      return closing
    },
  }
}

/** Looks up trials whose finish was not heard: finished ones are settled, vanished ones fail. */
async function sweep(
  queue: Queue,
  jobIds: readonly string[],
  settle: (jobId: string, result: TrialResult) => void,
  idOf: (jobId: string) => string,
): Promise<void> {
  await Promise.all(
    jobIds.map(async (jobId) => {
      try {
        const state = await queue.getJobState(jobId)
        if (state === 'unknown') {
          settle(jobId, {
            id: idOf(jobId),
            tradesHash: '',
            error: 'the trial vanished from the queue (did Redis restart without persistence?)',
          })
          return
        }
        if (state !== 'completed' && state !== 'failed') return
        const job = await Job.fromId(queue, jobId)
        if (!job) return
        settle(jobId, state === 'completed' ? trialResultOf(idOf(jobId), job.returnvalue) : failed(idOf(jobId), job.failedReason))
      } catch {
        // Redis is away: the next sweep asks again, or the run fails as lost.
      }
    }),
  )
}

function failed(id: string, reason: unknown): TrialResult {
  const message = reason instanceof Error ? reason.message : String(reason)
  return { id, tradesHash: '', error: `the queue reports the trial failed: ${message}` }
}

async function withinMs<T>(ms: number, work: () => Promise<T>): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined
  try {
    return await Promise.race([
      work(),
      new Promise<undefined>((resolve) => {
        timer = setTimeout(() => resolve(undefined), ms)
      }),
    ])
  } finally {
    clearTimeout(timer)
  }
}
