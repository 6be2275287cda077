import { Piscina } from 'piscina'
import { BaseError } from '../../errors/base.js'
import type { TrialExecutor, TrialResult, TrialSpec } from './trial.js'

export type CreateWorkerPoolExecutorParameters = {
  /** Worker threads, each running one trial at a time (a whole number ≥ 1; the machine's cores is the useful most). */
  workers: number
}

/**
 * The pool could not run trials at all: a worker thread failed while loading its entry module (a broken install or
 * build), or the `workers` count is not a whole number ≥ 1. Operational: nothing is retried; fix the install or the
 * option and run again. A trial that fails, or a worker that dies during a trial, is not this error (see
 * createWorkerPoolExecutor).
 */
export class WorkerPoolError extends BaseError {
  override name = 'WorkerPoolError' as const
}

/**
 * Runs trials on worker threads (piscina), one trial at a time per thread. Each thread keeps the quote sets it has
 * opened (runTrial's cache), so a quote set is opened once per worker, not once per trial.
 *
 * - A trial that fails comes back with `error` (runTrial never throws); the pool runs on.
 * - A worker that dies during a trial (a strategy calling process.exit, or throwing from a stray callback) is
 *   replaced, and its trial runs once more on a fresh worker; if that dies too, the trial comes back with `error`,
 *   naming what ended both workers.
 * - Results come back in the order of `specs`, whatever order the workers finish in; each result depends only on its
 *   spec, so the same specs give the same results with any number of workers.
 *
 * The threads start at the first `run` and stop at `close`.
 *
 * @example
 * const executor = createWorkerPoolExecutor({ workers: availableParallelism() })
 * try { results = await executor.run(specs) } finally { await executor.close() }
 */
export function createWorkerPoolExecutor({ workers }: CreateWorkerPoolExecutorParameters): TrialExecutor {
  if (!Number.isSafeInteger(workers) || workers < 1) {
    throw new WorkerPoolError(`expected the number of workers to be a whole number of at least 1, received ${workers}`, {
      hint: 'give --workers a count such as 2 (the machine’s cores is the useful most)',
      errorClass: 'operational',
    })
  }
  let pool: Piscina<TrialSpec, TrialResult> | undefined
  /** Rejects once the pool cannot start workers: every trial still running fails the run with it. */
  let broken: Promise<never> | undefined
  let closed = false
  /** Trials a worker has answered (a result, not a death): the workers can load their entry. */
  let trialsReturned = 0

  function started(): { pool: Piscina<TrialSpec, TrialResult>; broken: Promise<never> } {
    if (pool && broken) return { pool, broken }
    const created = new Piscina<TrialSpec, TrialResult>({
      filename: workerEntry().href,
      minThreads: workers,
      maxThreads: workers,
      concurrentTasksPerWorker: 1,
      // Idle workers wait on their message port rather than blocking in Atomics.wait: a trial's leftover asynchronous
      // work (a logger's flush) is never frozen between trials. The cost, a message per trial, is negligible beside
      // a backtest.
      atomics: 'disabled',
    })
    // Piscina emits 'error' for a worker that fails with no trial on it: one that cannot load its entry module (the
    // trials waiting for it would then wait forever), or one that threw from a stray callback after its trial (it is
    // replaced). Before any trial has come back, or once no worker is left, the pool is broken.
    const failed = new Promise<never>((_resolve, reject) => {
      created.on('error', (error: unknown) => {
        if (trialsReturned > 0 && created.threads.length > 0) return
        reject(
          new WorkerPoolError('the worker threads of the optimiser cannot run trials', {
            details: { entry: workerEntry().href },
            hint: 'the install or build is broken: run `npm run build` (or reinstall deltaflow) and try again',
            cause: error,
            errorClass: 'operational',
          }),
        )
      })
    })
    failed.catch(() => {})
    pool = created
    broken = failed
    return { pool, broken }
  }

  return {
    async run(specs, onResult) {
      if (closed) throw new WorkerPoolError('the worker pool is closed; create a new executor to run more trials')
      if (specs.length === 0) return []
      const running = started()
      return Promise.all(
        specs.map(async (spec) => {
          const result = await Promise.race([
            runOnWorker(running.pool, spec, () => {
              trialsReturned++
            }),
            running.broken,
          ])
          onResult?.(result)
          return result
        }),
      )
    },
    async close() {
      closed = true
      const stopping = pool
      pool = undefined
      await stopping?.destroy()
    },
  }
}

/** One trial on a worker; once more on a fresh worker if its worker dies, then a result with `error`. */
async function runOnWorker(pool: Piscina<TrialSpec, TrialResult>, spec: TrialSpec, onAnswer: () => void): Promise<TrialResult> {
  let firstDeath: unknown
  for (let attempt = 1; attempt <= 2; attempt++) {
    try {
      const result = await pool.run(spec)
      onAnswer()
      return result
    } catch (error) {
      firstDeath ??= error
      if (attempt === 2) {
        return {
          id: spec.id,
          tradesHash: '',
          error: `the worker thread running this trial died, and so did the fresh one it was given (${messageOf(firstDeath)}; then ${messageOf(error)})`,
        }
      }
    }
  }
  throw new Error('unreachable: the second attempt returns')
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

/**
 * The module each worker thread loads: trial-worker.js beside this module in the compiled package; when this module
 * is itself TypeScript (tests, scripts, DELTAFLOW_FROM_SOURCE=1), a JavaScript entry that registers tsx in the thread
 * first (a worker does not inherit its parent's TypeScript loader on Node 20) and then imports trial-worker.ts.
 */
function workerEntry(): URL {
  return import.meta.url.endsWith('.ts')
    ? new URL('./trial-worker-from-source.mjs', import.meta.url)
    : new URL('./trial-worker.js', import.meta.url)
}
