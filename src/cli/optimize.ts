import { writeFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { SingleBar } from 'cli-progress'
import { type Command, InvalidArgumentError } from 'commander'
import type { TrialExecutor } from '../backtest/optimize/trial.js'
import { requireFile } from '../config/file-not-found.js'
import { CommandUsageError, reportCommandError } from './command-errors.js'
import { descriptionOf } from './command-summaries.js'
import { parseSeed, parseTime } from './option-parsers.js'
import { requireOutputPath } from './output-path.js'
import { packageVersion } from './package-version.js'
import { parseQueueOption, queueOptionDescription } from './queue-option.js'

type OptimizeOptions = {
  quotes: string
  workers: number
  queue?: string
  seed?: number
  json?: boolean
  report?: string
  from?: number
  to?: number
  progress?: boolean
}

export function registerOptimizeCommand(program: Command): void {
  program
    .command('optimize')
    .description(descriptionOf('optimize'))
    .argument('<config>', 'YAML configuration with an optimize section (space, sampler, objective, walkForward)')
    .requiredOption('--quotes <file>', 'recorded quotes: .jsonl, .jsonl.gz or a packed .sqlite store (packed is much faster)')
    .option('--workers <n>', 'trials in parallel on worker threads (1: in this process)', parseWorkers, 1)
    .option('--queue <url>', `run the trials on \`deltaflow worker\` processes instead, through ${queueOptionDescription}`)
    .option('--seed <n>', 'seeds the sampler and the fill model (default: optimize.seed of the config)', parseSeed)
    .option('--from <time>', 'start of the walk-forward period (ISO 8601 or unix ms; default: the first quote)', parseTime)
    .option('--to <time>', 'end of the period, exclusive (default: after the last quote)', parseTime)
    .option('--json', 'print the whole result as one JSON document (keys sorted; the same inputs and seed print the same bytes)')
    .option('--report <file>', 'also write an offline HTML report: objective per parameter, folds IS vs OOS, recommendation, rankings')
    .option('--no-progress', 'no progress bar even on a terminal')
    .action(async (file: string, options: OptimizeOptions) => {
      await optimize(file, options).catch((error: unknown) => reportCommandError(error, options.json))
    })
}

function parseWorkers(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > 256) {
    throw new InvalidArgumentError(`expected a whole number of workers from 1 to 256, received "${value}"`)
  }
  return Number(value)
}

async function optimize(file: string, options: OptimizeOptions): Promise<void> {
  requireFile(file, 'a YAML configuration')
  requireFile(options.quotes, 'recorded quotes (.jsonl, .jsonl.gz or a .sqlite store)')
  if (options.report !== undefined) requireOutputPath(options.report)
  if (options.from !== undefined && options.to !== undefined && options.to <= options.from) {
    throw new CommandUsageError(`--to must be after --from, received --from ${options.from} and --to ${options.to}`)
  }
  const queue = options.queue === undefined ? undefined : parseQueueOption(options.queue)
  if (queue && options.workers > 1) {
    throw new CommandUsageError(
      `--workers ${options.workers} runs trials on threads of this process, --queue on \`deltaflow worker\` processes: give one of them`,
      'with --queue, start each worker with --concurrency N (trials at once on that machine)',
    )
  }
  // The config, its strategies' configs and the optimize section's paths are checked before anything runs.
  const [{ loadCheckedConfig }, { checkOptimizeSpace }] = await Promise.all([
    import('../runtime/load-strategies.js'),
    import('../backtest/optimize/check-space.js'),
  ])
  const document = await loadCheckedConfig(file, { requireStrategies: true })
  const checked = await checkOptimizeSpace(document)
  const [{ runOptimization, quotePeriodOf }, { formatOptimizeReport }, { canonicalJson }] = await Promise.all([
    import('../backtest/optimize/optimize.js'),
    import('../backtest/optimize/optimize-text.js'),
    import('../domain/intents/intent-id.js'),
  ])
  const period = await quotePeriodOf(options.quotes, { from: options.from, to: options.to })
  const executor: TrialExecutor = queue
    ? (await import('../backtest/optimize/queue-executor.js')).createQueueExecutor({ address: queue, version: packageVersion() })
    : options.workers > 1
      ? (await import('../backtest/optimize/worker-pool.js')).createWorkerPoolExecutor({ workers: options.workers })
      : (await import('../backtest/optimize/trial.js')).createSequentialExecutor()
  if (queue) {
    process.stderr.write(
      `optimize: trials go to the queue on ${queue.display}; run \`deltaflow worker --queue <the same URL>\` to work on them\n`,
    )
    // Interrupted: the run's jobs still waiting leave the queue (and its files the side store) before the exit.
    const interrupted = () => void executor.close().finally(() => process.exit(130))
    process.once('SIGINT', interrupted)
    process.once('SIGTERM', interrupted)
  }
  const bar =
    options.progress !== false && process.stderr.isTTY === true
      ? new SingleBar({ stream: process.stderr, format: 'trials [{bar}] {value}/{total} | {eta_formatted}' })
      : undefined
  let total = 0
  bar?.start(0, 0)
  try {
    const report = await runOptimization({
      configFile: resolve(file),
      quotes: resolve(options.quotes),
      ...checked,
      period,
      seed: options.seed ?? checked.optimize.seed,
      executor,
      onPlanned: (trials) => {
        total += trials
        bar?.setTotal(total)
      },
      onResult: () => bar?.increment(),
    })
    bar?.stop()
    process.stdout.write(`${options.json ? canonicalJson({ period, ...report }) : formatOptimizeReport(report)}\n`)
    if (options.report !== undefined) {
      const { renderOptimizeReport } = await import('../backtest/optimize/render-optimize-report.js')
      const html = renderOptimizeReport({
        report,
        optimize: checked.optimize,
        config: resolve(file),
        quotes: resolve(options.quotes),
        period,
      })
      writeFileSync(options.report, html)
      // with --json, stdout holds the JSON document alone
      if (!options.json) process.stdout.write(`report: ${options.report}\n`)
    }
  } finally {
    bar?.stop()
    await executor.close()
  }
}
