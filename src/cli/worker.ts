import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { type Command, InvalidArgumentError } from 'commander'
import { createLogger, logLevels, resolveLogLevel } from '../log/logger.js'
import { reportCommandError } from './command-errors.js'
import { descriptionOf } from './command-summaries.js'
import { packageVersion } from './package-version.js'
import { parseQueueOption, queueOptionDescription } from './queue-option.js'

type WorkerOptions = {
  queue: string
  concurrency: number
  cache?: string
  sharedPaths: boolean
  lockDuration: number
  stalledInterval: number
  logLevel?: string
}

/** Where fetched quote sets are kept when --cache is not given. */
const defaultCacheDirectory = join(tmpdir(), 'deltaflow-quote-cache')

export function registerWorkerCommand(program: Command): void {
  program
    .command('worker')
    .description(descriptionOf('worker'))
    .requiredOption('--queue <url>', queueOptionDescription)
    .option(
      '--concurrency <n>',
      'trials at once, each on its own worker thread (the machine’s cores is the useful most)',
      parseConcurrency,
      1,
    )
    .option('--cache <dir>', `where quote sets fetched from the queue are kept, by hash (default: ${defaultCacheDirectory})`)
    .option('--no-shared-paths', 'always fetch quote sets into the cache, even when the optimiser’s path holds the same file here')
    .option('--lock-duration <seconds>', 'a trial of a worker silent for this long goes to another worker', parsePositiveSeconds, 10)
    .option('--stalled-interval <seconds>', 'how often this worker looks for such trials', parsePositiveSeconds, 5)
    .option('--log-level <level>', `${logLevels.join(', ')} (default: DELTAFLOW_LOG_LEVEL or info)`)
    .action(async (options: WorkerOptions) => {
      await runWorker(options).catch((error: unknown) => reportCommandError(error, false))
    })
}

function parseConcurrency(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > 256) {
    throw new InvalidArgumentError(`expected a whole number of trials at once from 1 to 256, received "${value}"`)
  }
  return Number(value)
}

function parsePositiveSeconds(value: string): number {
  const seconds = Number(value)
  if (!/^\d+(\.\d+)?$/.test(value) || !(seconds > 0))
    throw new InvalidArgumentError(`expected a positive number of seconds, received "${value}"`)
  return seconds
}

async function runWorker(options: WorkerOptions): Promise<void> {
  const address = parseQueueOption(options.queue)
  const logger = createLogger({ level: resolveLogLevel({ flag: options.logLevel }), pretty: process.stderr.isTTY === true })
  const cacheDirectory = resolve(options.cache ?? defaultCacheDirectory)
  const { startQueueWorker } = await import('../backtest/optimize/queue-worker.js')
  const worker = await startQueueWorker({
    address,
    version: packageVersion(),
    concurrency: options.concurrency,
    cacheDirectory,
    sharedPaths: options.sharedPaths,
    lockDurationMs: options.lockDuration * 1000,
    stalledIntervalMs: options.stalledInterval * 1000,
    logger,
  })
  logger.info(
    { queue: address.display, worker: worker.name, concurrency: options.concurrency, cache: cacheDirectory },
    'worker ready: running trials from the queue until SIGINT / SIGTERM',
  )
  const signals = signalCounter()
  try {
    let failure: unknown
    const reason = await Promise.race([
      signals.next(),
      worker.failed.catch((error: unknown) => {
        failure = error
        return 'failure'
      }),
    ])
    if (failure !== undefined) {
      await worker.stop('release')
      throw failure
    }
    logger.info({ reason }, 'stopping: trials in progress finish (a second signal puts them back in the queue)')
    void signals.next().then((again) => {
      logger.info({ reason: again }, 'stopping now: trials in progress go back in the queue for other workers')
      void worker.stop('release')
      // A third signal: out at once (the trials' locks expire and other workers take them).
      void signals.next().then(() => process.exit(130))
    })
    await worker.stop('finish')
    logger.info('worker stopped')
  } finally {
    signals.dispose()
  }
}

/** Each call resolves at the next SIGINT or SIGTERM after it. */
function signalCounter(): { next: () => Promise<string>; dispose: () => void } {
  const waiting: ((reason: string) => void)[] = []
  const onSignal = (signal: NodeJS.Signals) => waiting.shift()?.(signal)
  process.on('SIGINT', onSignal)
  process.on('SIGTERM', onSignal)
  return {
    next: () => new Promise((resolve) => waiting.push(resolve)),
    dispose: () => {
      process.off('SIGINT', onSignal)
      process.off('SIGTERM', onSignal)
    },
  }
}
