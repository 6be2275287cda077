import { writeFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { SingleBar } from 'cli-progress'
import { type Command, InvalidArgumentError } from 'commander'
import type { BacktestResult } from '../backtest/backtest-result.js'
import type { SweepRow } from '../backtest/sweep-table.js'
import type { TradeRow } from '../backtest/trades-export.js'
import { type TradesFormat, tradesFormatOf, tradesFormats } from '../backtest/trades-format.js'
import { requireFile } from '../config/file-not-found.js'
import { createLogger, resolveLogLevel } from '../log/logger.js'
import { reportCommandError } from './command-errors.js'
import { descriptionOf } from './command-summaries.js'
import { parseSeed, parseTime } from './option-parsers.js'
import { requireOutputPath } from './output-path.js'

type BacktestOptions = {
  quotes: string
  from?: number
  to?: number
  json?: boolean
  report?: string
  out?: string
  trades?: { file: string; format: TradesFormat }
  set: string[]
  seed?: number
  progress?: boolean
}

/** One `--set path=a,b,c`: the values a sweep tries for one path. */
export type SweepParameter = { path: string; values: string[] }

export function registerBacktestCommand(program: Command): void {
  program
    .command('backtest')
    .description(descriptionOf('backtest'))
    .argument('<config>', 'YAML configuration (strategies, risk, executor, and its backtest section)')
    .requiredOption('--quotes <file>', 'recorded quotes: .jsonl, .jsonl.gz or a packed .sqlite store')
    .option('--from <time>', 'start at this time (ISO 8601 or unix ms; default: the first quote)', parseTime)
    .option('--to <time>', 'stop before this time (default: after the last quote)', parseTime)
    .option('--json', 'print the summary, metrics included, as one JSON document (a sweep: one line per combination)')
    .option('--report <file>', 'write the HTML report (a sweep: of the best combination, with the sweep table)')
    .option('--out <file>', 'write the whole result (series, days and fills included) as JSON')
    .option('--trades <file>', 'write every fill as CSV (.csv) or JSON Lines (.jsonl); a sweep: of the best combination', parseTradesFile)
    .option('--set <path=values>', 'override a config value; comma-separated values make a sweep (repeatable)', collect, [])
    .option('--seed <n>', "the fill model's seed (default: backtest.seed of the config)", parseSeed)
    .option('--no-progress', 'no progress bar even on a terminal')
    .action(async (file: string, options: BacktestOptions) => {
      await backtest(file, options).catch((error: unknown) => reportCommandError(error, options.json))
    })
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value]
}

function parseTradesFile(value: string): { file: string; format: TradesFormat } {
  const format = tradesFormatOf(value)
  if (!format) {
    throw new InvalidArgumentError(`expected a file ending in ${Object.keys(tradesFormats).join(' or ')}, received "${value}"`)
  }
  return { file: value, format }
}

/** `path=a,b,c` → the path and its values; refuses a setting without `=` or without a value. */
export function parseSweepParameter(text: string): SweepParameter {
  const at = text.indexOf('=')
  const path = at < 0 ? '' : text.slice(0, at).trim()
  const values =
    at < 0
      ? []
      : text
          .slice(at + 1)
          .split(',')
          .map((value) => value.trim())
  if (path === '' || values.length === 0 || values.some((value) => value === '')) {
    throw new InvalidArgumentError(
      `--set expects path=value or path=a,b,c (e.g. strategies.0.config.slicesPerOrder=4,8), received "${text}"`,
    )
  }
  return { path, values }
}

/** Every combination of the sweep's values, the first parameter varying slowest. */
export function sweepCombinations(parameters: readonly SweepParameter[]): { path: string; value: string }[][] {
  let combinations: { path: string; value: string }[][] = [[]]
  for (const parameter of parameters) {
    combinations = combinations.flatMap((combination) => parameter.values.map((value) => [...combination, { path: parameter.path, value }]))
  }
  return combinations
}

async function backtest(file: string, options: BacktestOptions): Promise<void> {
  const logger = createLogger({ level: resolveLogLevel({ fallback: 'warn' }), pretty: process.stderr.isTTY === true })
  const parameters = options.set.map(parseSweepParameter)
  const combinations = sweepCombinations(parameters)
  requireFile(file, 'a YAML configuration')
  requireFile(options.quotes, 'recorded quotes (.jsonl, .jsonl.gz or a .sqlite store)')
  // Where the results go is checked before the replay: a backtest must not run for minutes and then fail to write.
  if (options.report !== undefined) requireOutputPath(options.report)
  if (options.out !== undefined) requireOutputPath(options.out, '--out')
  if (options.trades !== undefined) requireOutputPath(options.trades.file, '--trades')
  // Every combination's config is checked (strategies' own configs too) before the replay opens.
  const { loadCheckedConfig } = await import('../runtime/load-strategies.js')
  const seedSet = options.seed === undefined ? [] : [{ path: 'backtest.seed', value: String(options.seed) }]
  const runs = await Promise.all(
    combinations.map(async (combination) => ({
      combination,
      document: await loadCheckedConfig(file, { set: [...combination, ...seedSet], requireStrategies: true }),
    })),
  )
  // The replay, the runtime and the report load once the flags have passed: a wrong flag is told at once.
  const [
    { openQuoteReplay },
    { runBacktest },
    { backtestResultOf },
    { renderBacktestReport },
    { excessOf, formatSweepTable },
    { tradeRowsOf, formatTrades },
    { formatBacktestSummary },
  ] = await Promise.all([
    import('../backtest/quote-blocks.js'),
    import('../backtest/run-backtest.js'),
    import('../backtest/backtest-results.js'),
    import('../backtest/render-report.js'),
    import('../backtest/sweep-table.js'),
    import('../backtest/trades-export.js'),
    import('./backtest-summary-text.js'),
  ])
  const source = await openQuoteReplay(options.quotes)
  const sweeping = combinations.length > 1
  const rows: { parameters: Record<string, string | number | boolean>; result: BacktestResult }[] = []
  // The best combination so far (the highest excess over buy-and-hold; the first of a tie) and its fills, for --trades.
  let best: { result: BacktestResult; trades: TradeRow[] | undefined } | undefined
  for (const { combination, document } of runs) {
    const bar =
      options.progress !== false && process.stderr.isTTY === true
        ? new SingleBar({ stream: process.stderr, format: progressFormat(combination) })
        : undefined
    bar?.start(1000, 0, { quotes: 0 })
    const run = await runBacktest({
      document,
      source,
      from: options.from,
      to: options.to,
      logger,
      onProgress: bar
        ? ({ now, from, to, quotes }) => bar.update(Math.min(1000, Math.floor(((now - from) / Math.max(1, to - from)) * 1000)), { quotes })
        : undefined,
    })
    bar?.update(1000, { quotes: run.quotes })
    bar?.stop()
    const result = backtestResultOf(run, {
      config: resolve(file),
      quotes: resolve(options.quotes),
      seed: document.config.backtest.seed,
      riskFreeRate: document.config.backtest.metrics.riskFreeRate,
    })
    const values = Object.fromEntries(combination.map(({ path, value }) => [path, scalar(value)]))
    rows.push({ parameters: values, result })
    if (!best || excessOf(result.summary) > excessOf(best.result.summary))
      best = { result, trades: options.trades ? tradeRowsOf(run) : undefined }
    if (options.json) {
      // The summary with its metrics, the strategies and the warnings: what a script ranks by. Series, days and
      // fills are in --out.
      const { series: _series, fills: _fills, daily: _daily, ...summary } = result
      process.stdout.write(`${JSON.stringify(sweeping ? { parameters: values, ...summary } : summary)}\n`)
    } else {
      process.stdout.write(`${formatBacktestSummary(result, values)}\n`)
    }
  }
  if (sweeping && !options.json) {
    const table = formatSweepTable(
      rows.map((row): SweepRow => ({ parameters: row.parameters, summary: row.result.summary })),
      { quote: rows[0]?.result.pair.quote },
    )
    process.stdout.write(`\n${table.text}\n`)
  }
  if (best && options.out) writeFileSync(options.out, `${JSON.stringify(best.result, null, 2)}\n`)
  if (best?.trades && options.trades) {
    writeFileSync(options.trades.file, formatTrades(best.trades, options.trades.format))
    if (!options.json) process.stdout.write(`trades: ${options.trades.file} (${best.trades.length} fills)\n`)
  }
  if (best && options.report) {
    const sweep = sweeping ? rows.map((row): SweepRow => ({ parameters: row.parameters, summary: row.result.summary })) : undefined
    writeFileSync(options.report, renderBacktestReport(best.result, { sweep }))
    if (!options.json) process.stdout.write(`report: ${options.report}\n`)
  }
}

function scalar(value: string): string | number | boolean {
  if (value === 'true' || value === 'false') return value === 'true'
  return /^-?\d+(\.\d+)?$/.test(value) && Number.isSafeInteger(Math.trunc(Number(value))) ? Number(value) : value
}

function progressFormat(combination: readonly { path: string; value: string }[]): string {
  const label = combination.map(({ path, value }) => `${path.split('.').at(-1)}=${value}`).join(' ')
  return `${label ? `${label} ` : ''}[{bar}] {percentage}% | {quotes} quotes | {eta_formatted}`
}
