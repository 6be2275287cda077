import { resolve } from 'node:path'
import { keptPromise } from '../../domain/kept-promise.js'
import type { BacktestSummary } from '../backtest-result.js'
import type { QuoteReplaySource } from '../replay-source.js'
import { momentsOf, type ReturnMoments } from './deflated-sharpe.js'

// The contract between the optimiser and whatever runs its backtests (this file's sequential executor, the worker
// pool, the queue of queue-executor.ts): a trial is plain JSON in, plain JSON out, so it crosses a worker thread
// (structured clone) or a queue (JSON) as it is.

/** One backtest of one candidate on one window: everything a worker needs, plain JSON (structured-clone safe). */
export type TrialSpec = {
  /** Deterministic: `${fold}:${stage}:${candidateIndex}` (zero-padded so that ids sort in run order). */
  id: string
  /** Absolute path of the YAML. */
  configFile: string
  /**
   * The YAML's text, when the trial runs where configFile may not be (a queue worker on another machine): checked in
   * place of the file, which still names it in messages and is where relative strategy paths start.
   */
  configText?: string
  /** As `--set` gives them (the seed is in `seed`, not here). */
  overrides: { path: string; value: string }[]
  /** Absolute path of the quote set (.jsonl(.gz) or packed .sqlite). */
  quotes: string
  /** Clock ms window [from, to). */
  from: number
  to: number
  /** The fill model's seed (backtest.seed). */
  seed: number
}

export type TrialResult = {
  id: string
  /** From backtest-result.ts (metrics included); absent when the trial failed. */
  summary?: BacktestSummary
  /** Hex digest of the fills; '' when the trial failed. */
  tradesHash: string
  /** A trial that failed (a bad candidate): its message, never a crash of the run. */
  error?: string
  /** The shape of the equity's period returns (the Deflated Sharpe Ratio needs them); absent with fewer than 4 returns. */
  returns?: ReturnMoments
}

export type TrialExecutor = {
  /** Runs every spec; results in any order, each once; onResult as each finishes (progress). */
  run(specs: readonly TrialSpec[], onResult?: (result: TrialResult) => void): Promise<TrialResult[]>
  close(): Promise<void>
}

/** Quote sets already open in this process (thread), by absolute path: each is opened once and replayed by every trial. */
const openSources = new Map<string, Promise<QuoteReplaySource>>()

/** The quote set at `file`, opened once per process (thread) and shared by every trial and caller. */
export async function openCachedQuoteReplay(file: string): Promise<QuoteReplaySource> {
  const path = resolve(file)
  // A file that failed to open is tried again by the next trial (it may be fixed), not cached as a failure.
  return keptPromise(openSources, path, async () => {
    const { openQuoteReplay } = await import('../quote-blocks.js')
    return openQuoteReplay(path)
  })
}

/**
 * Runs one trial in this process: the config with the candidate's overrides and the seed (checked whole, the
 * strategy's own schema included), the replay of [from, to), the result's summary. A candidate the config refuses or
 * a backtest that cannot run comes back as `error`; it never throws.
 */
export async function runTrial(spec: TrialSpec): Promise<TrialResult> {
  try {
    const [{ loadCheckedConfig, loadCheckedConfigText }, { runBacktest }, { backtestResultOf }, { periodReturnsOf }] = await trialModules()
    const parameters = { set: [...spec.overrides, { path: 'backtest.seed', value: String(spec.seed) }], requireStrategies: true }
    const document =
      spec.configText === undefined
        ? await loadCheckedConfig(spec.configFile, parameters)
        : await loadCheckedConfigText(spec.configText, spec.configFile, parameters)
    const source = await openCachedQuoteReplay(spec.quotes)
    const run = await runBacktest({ document, source, from: spec.from, to: spec.to })
    const result = backtestResultOf(run, {
      config: spec.configFile,
      quotes: spec.quotes,
      seed: document.config.backtest.seed,
      riskFreeRate: document.config.backtest.metrics.riskFreeRate,
    })
    const moments = momentsOf(periodReturnsOf(result.series.equity, result.summary.metrics.returns.periodMs))
    return { id: spec.id, summary: result.summary, tradesHash: result.tradesHash, ...(moments ? { returns: moments } : {}) }
  } catch (error) {
    return { id: spec.id, tradesHash: '', error: error instanceof Error ? error.message : String(error) }
  }
}

const loadedTrialModules = new Map<'trial', ReturnType<typeof importTrialModules>>()

/**
 * The modules a trial runs, imported on the first trial of this process (thread) and kept (a failed import is tried
 * again): importing them with this module would load the whole backtest wherever the executors' types are needed, and
 * importing them on every trial costs a trip through the module loader's resolve hooks each time.
 */
function trialModules(): ReturnType<typeof importTrialModules> {
  return keptPromise(loadedTrialModules, 'trial', importTrialModules)
}

function importTrialModules() {
  return Promise.all([
    import('../../runtime/load-strategies.js'),
    import('../run-backtest.js'),
    import('../backtest-results.js'),
    import('../metrics.js'),
  ])
}

/** Runs the trials one after another in this process, in the order given. */
export function createSequentialExecutor(): TrialExecutor {
  return {
    async run(specs, onResult) {
      const results: TrialResult[] = []
      for (const spec of specs) {
        const result = await runTrial(spec)
        results.push(result)
        onResult?.(result)
      }
      return results
    },
    async close() {},
  }
}
