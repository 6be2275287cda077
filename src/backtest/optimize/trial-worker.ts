import { runTrial, type TrialResult, type TrialSpec } from './trial.js'

// The module a worker thread of the pool (worker-pool.ts) loads: piscina calls its default export once per trial.
// The thread keeps its module state between trials, so runTrial's quote sets stay open: each worker opens a quote
// set once and replays it for every trial it runs.

/** Runs one trial in this worker thread; never throws (a failed trial comes back with `error`). */
export default function runTrialInWorker(spec: TrialSpec): Promise<TrialResult> {
  return runTrial(spec)
}
