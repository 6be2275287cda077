import { resolve } from 'node:path'
import type { OptimizeConfig } from '../../config/optimize-schema.js'
import { deflatedSharpeRatio } from './deflated-sharpe.js'
import {
  type Candidate,
  type Constraint,
  neighboursOf,
  type Parameter,
  type ParameterValue,
  parametersOf,
  sampleCandidates,
} from './space.js'
import type { TrialExecutor, TrialResult, TrialSpec } from './trial.js'
import {
  type Fold,
  foldWindows,
  halvingWindows,
  limitBroken,
  objectiveOf,
  rankScores,
  type Window,
  walkForwardEfficiency,
} from './walk-forward.js'

// The walk-forward optimisation: for each fold, every candidate (or successive halving) on the in-sample window, the
// best by the objective scored on the out-of-sample window; the recommendation from out-of-sample scores only, and
// its robustness (neighbours, Deflated Sharpe Ratio). Trials run on the executor given; results are sorted by spec id
// before use, so the outcome never depends on the order trials finish in.

/** A trial's figures as the report shows them. */
export type TrialFigures = { score: number | null; return: number | null; sharpe: number | null; trades: number | null; excluded?: string }

export type OptimizeReport = {
  objective: OptimizeConfig['objective']
  sampler: OptimizeConfig['sampler']
  seed: number
  parameters: string[]
  candidates: { index: number; values: ParameterValue[] }[]
  /** Candidates the constraints skipped. */
  skipped: number
  trials: number
  folds: {
    index: number
    inSample: Window
    outOfSample: Window
    /** In-sample ranking (the last halving round's survivors first, then the others by their last round), best first. */
    ranking: ({ candidate: number; round: number } & TrialFigures)[]
    winner: number | null
    inSampleScore: TrialFigures | null
    outOfSampleScore: TrialFigures | null
  }[]
  walkForwardEfficiency: number | null
  recommendation: Recommendation | null
}

export type Recommendation = {
  candidate: number
  values: Record<string, ParameterValue>
  /** The fold whose in-sample window first chose it; its out-of-sample evidence is every fold from there on. */
  chosenInFold: number
  outOfSample: { fold: number; figures: TrialFigures }[]
  meanScore: number | null
  neighbours: { path: string; value: ParameterValue; meanScore: number | null; warning?: string }[]
  deflatedSharpe: { trials: number; sharpe: number | null; expectedMaximum: number; dsr: number | null } | null
  warnings: string[]
}

export type OptimizeInputs = {
  configFile: string
  quotes: string
  optimize: OptimizeConfig
  constraints: readonly Constraint[]
  fixedValueOf: (path: string) => number
  period: Window
  seed: number
  executor: TrialExecutor
  onResult?: (result: TrialResult) => void
  /** Told how many trials a stage adds, before they run (a progress bar's total). */
  onPlanned?: (trials: number) => void
}

/** A drop of more than this share of the recommended score at a neighbour is flagged. */
export const sharpDropShare = 0.5

export async function runOptimization(inputs: OptimizeInputs): Promise<OptimizeReport> {
  const { optimize, seed, executor } = inputs
  const parameters = parametersOf(optimize.space)
  const { candidates, skipped } = sampleCandidates({
    parameters,
    sampler: optimize.sampler,
    trials: optimize.trials,
    seed,
    constraints: inputs.constraints,
    fixedValueOf: inputs.fixedValueOf,
  })
  const folds = foldWindows(inputs.period, optimize.walkForward)
  let trials = 0
  const specOf = (id: string, values: readonly ParameterValue[], window: Window): TrialSpec => ({
    id,
    configFile: resolve(inputs.configFile),
    overrides: parameters.map((parameter, at) => ({ path: parameter.path, value: String(values[at]) })),
    quotes: resolve(inputs.quotes),
    from: window.from,
    to: window.to,
    seed,
  })
  const runAll = async (specs: TrialSpec[]): Promise<Map<string, TrialResult>> => {
    inputs.onPlanned?.(specs.length)
    trials += specs.length
    const results = await executor.run(specs, inputs.onResult)
    return new Map(
      [...results].sort((left, right) => (left.id < right.id ? -1 : left.id > right.id ? 1 : 0)).map((result) => [result.id, result]),
    )
  }
  const figuresOf = (result: TrialResult | undefined): TrialFigures => {
    if (!result?.summary) return { score: null, return: null, sharpe: null, trades: null, excluded: result?.error ?? 'no result' }
    const excluded = limitBroken(result.summary, optimize.limits)
    return {
      score: objectiveOf(result.summary, optimize.objective),
      return: result.summary.metrics.totalReturn,
      sharpe: result.summary.metrics.sharpe,
      trades: result.summary.trades,
      ...(excluded ? { excluded } : {}),
    }
  }
  const pad = (value: number) => String(value).padStart(5, '0')

  const foldReports: OptimizeReport['folds'] = []
  const inSampleResults = new Map<number, TrialResult[]>()
  for (const fold of folds) {
    // successive halving: round r on its window with the survivors of round r − 1
    const windows = optimize.halving ? halvingWindows(fold.inSample, optimize.halving) : [fold.inSample]
    let alive = candidates.map((_, index) => index)
    const last = new Map<number, { round: number; figures: TrialFigures; result: TrialResult | undefined }>()
    for (const [round, window] of windows.entries()) {
      const ids = alive.map((candidate) => `${pad(fold.index)}:is${round}:${pad(candidate)}`)
      const results = await runAll(alive.map((candidate, at) => specOf(ids[at] as string, candidates[candidate] as Candidate, window)))
      const scores = alive.map((candidate, at) => {
        const result = results.get(ids[at] as string)
        const figures = figuresOf(result)
        last.set(candidate, { round, figures, result })
        return { candidate, ...figures }
      })
      const ranked = rankScores(scores)
      // the survivors, in candidate order (the next round's specs run in that order)
      if (round < windows.length - 1 && optimize.halving) {
        const kept = Math.max(1, Math.ceil(ranked.length * optimize.halving.keep))
        alive = ranked
          .slice(0, kept)
          .map((score) => score.candidate)
          .sort((left, right) => left - right)
      }
    }
    const ranking = rankScores([...last.entries()].map(([candidate, entry]) => ({ candidate, round: entry.round, ...entry.figures }))).sort(
      (left, right) => right.round - left.round,
    )
    inSampleResults.set(
      fold.index,
      [...last.values()].filter((entry) => entry.round === windows.length - 1).flatMap((entry) => (entry.result ? [entry.result] : [])),
    )
    const best = ranking[0]
    const winner = best && best.excluded === undefined && best.score !== null ? best.candidate : null
    foldReports.push({
      index: fold.index,
      inSample: fold.inSample,
      outOfSample: fold.outOfSample,
      ranking,
      winner,
      inSampleScore: winner === null ? null : (last.get(winner)?.figures ?? null),
      outOfSampleScore: null,
    })
  }

  // Out of sample: every fold's winner on every out-of-sample window from its own fold on (each is unseen by the
  // in-sample windows that chose it), in one batch.
  const chosenIn = new Map<number, number>()
  for (const report of foldReports) if (report.winner !== null && !chosenIn.has(report.winner)) chosenIn.set(report.winner, report.index)
  const oosId = (fold: number, candidate: number) => `${pad(fold)}:oos:${pad(candidate)}`
  const oosSpecs = [...chosenIn.entries()].flatMap(([candidate, first]) =>
    folds
      .filter((fold) => fold.index >= first)
      .map((fold) => specOf(oosId(fold.index, candidate), candidates[candidate] as Candidate, fold.outOfSample)),
  )
  const oos = await runAll(oosSpecs)
  for (const report of foldReports) {
    if (report.winner !== null) report.outOfSampleScore = figuresOf(oos.get(oosId(report.index, report.winner)))
  }
  const efficiencyFolds = foldReports.flatMap((report) =>
    report.inSampleScore?.return != null && report.outOfSampleScore?.return != null
      ? [
          {
            inSample: report.inSample,
            outOfSample: report.outOfSample,
            isReturn: report.inSampleScore.return,
            oosReturn: report.outOfSampleScore.return,
          },
        ]
      : [],
  )

  // The recommendation: the winner with the best mean out-of-sample score (ties: more out-of-sample windows, then the
  // more recent choice, then the lower candidate index).
  const evidence = [...chosenIn.entries()].map(([candidate, first]) => {
    const outOfSample = folds
      .filter((fold) => fold.index >= first)
      .map((fold) => ({ fold: fold.index, figures: figuresOf(oos.get(oosId(fold.index, candidate))) }))
    return { candidate, first, outOfSample, meanScore: meanScoreOf(outOfSample.map((entry) => entry.figures)) }
  })
  evidence.sort(
    (left, right) =>
      (right.meanScore ?? Number.NEGATIVE_INFINITY) - (left.meanScore ?? Number.NEGATIVE_INFINITY) ||
      right.outOfSample.length - left.outOfSample.length ||
      right.first - left.first ||
      left.candidate - right.candidate,
  )
  const chosen = evidence[0]
  let recommendation: Recommendation | null = null
  if (chosen && chosen.meanScore !== null) {
    const values = candidates[chosen.candidate] as Candidate
    const evidenceFolds = folds.filter((fold) => fold.index >= chosen.first)
    const neighbours = await robustnessOf({ parameters, values, folds: evidenceFolds, specOf, runAll, figuresOf, pad })
    const warnings: string[] = []
    for (const neighbour of neighbours) {
      const drop = neighbour.meanScore === null ? Number.POSITIVE_INFINITY : chosen.meanScore - neighbour.meanScore
      if (drop > sharpDropShare * Math.abs(chosen.meanScore)) {
        neighbour.warning = `${neighbour.path}=${neighbour.value}: ${neighbour.meanScore === null ? 'no score' : `score ${neighbour.meanScore.toFixed(3)}`} against ${chosen.meanScore.toFixed(3)}: a sharp peak`
        warnings.push(neighbour.warning)
      }
    }
    const lastFold = folds.at(-1) as Fold
    const deflatedSharpe = deflatedSharpeOf(
      oos.get(oosId(lastFold.index, chosen.candidate)),
      inSampleResults.get(lastFold.index) ?? [],
      candidates.length,
    )
    if (deflatedSharpe?.dsr != null && deflatedSharpe.dsr < 0.95) {
      warnings.push(
        `deflated Sharpe ${deflatedSharpe.dsr.toFixed(3)} < 0.95: the last out-of-sample Sharpe is not clearly above what ${candidates.length} trials give by luck`,
      )
    }
    recommendation = {
      candidate: chosen.candidate,
      values: Object.fromEntries(parameters.map((parameter, at) => [parameter.path, values[at] as ParameterValue])),
      chosenInFold: chosen.first,
      outOfSample: chosen.outOfSample,
      meanScore: chosen.meanScore,
      neighbours,
      deflatedSharpe,
      warnings,
    }
  }
  return {
    objective: optimize.objective,
    sampler: optimize.sampler,
    seed,
    parameters: parameters.map((parameter) => parameter.path),
    candidates: candidates.map((values, index) => ({ index, values })),
    skipped,
    trials,
    folds: foldReports,
    walkForwardEfficiency: walkForwardEfficiency(efficiencyFolds),
    recommendation,
  }
}

function meanScoreOf(figures: readonly TrialFigures[]): number | null {
  if (figures.length === 0 || figures.some((entry) => entry.score === null || entry.excluded !== undefined)) return null
  return figures.reduce((sum, entry) => sum + (entry.score as number), 0) / figures.length
}

/** Each parameter one step either way (the others kept), on the recommendation's out-of-sample windows. */
async function robustnessOf(context: {
  parameters: readonly Parameter[]
  values: Candidate
  folds: readonly Fold[]
  specOf: (id: string, values: readonly ParameterValue[], window: Window) => TrialSpec
  runAll: (specs: TrialSpec[]) => Promise<Map<string, TrialResult>>
  figuresOf: (result: TrialResult | undefined) => TrialFigures
  pad: (value: number) => string
}): Promise<Recommendation['neighbours']> {
  const { parameters, values, folds, specOf, runAll, figuresOf, pad } = context
  const moves = parameters.flatMap((parameter, at) =>
    neighboursOf(parameter.space, values[at] as ParameterValue).map((value, side) => ({
      at,
      path: parameter.path,
      value,
      key: `${pad(at)}.${side}`,
    })),
  )
  const idOf = (key: string, fold: number) => `${pad(fold)}:nb${key}`
  const specs = moves.flatMap((move) =>
    folds.map((fold) =>
      specOf(
        idOf(move.key, fold.index),
        values.map((value, at) => (at === move.at ? move.value : value)),
        fold.outOfSample,
      ),
    ),
  )
  const results = await runAll(specs)
  return moves.map((move) => ({
    path: move.path,
    value: move.value,
    meanScore: meanScoreOf(folds.map((fold) => figuresOf(results.get(idOf(move.key, fold.index))))),
  }))
}

/** The Deflated Sharpe Ratio of the recommendation's last out-of-sample run, for every candidate tried on that fold. */
function deflatedSharpeOf(
  result: TrialResult | undefined,
  tried: readonly TrialResult[],
  trials: number,
): Recommendation['deflatedSharpe'] {
  const moments = result?.returns
  if (!moments || moments.sharpe === null) return null
  const sharpes = tried.flatMap((entry) => (entry.returns?.sharpe != null ? [entry.returns.sharpe] : []))
  const average = sharpes.reduce((sum, value) => sum + value, 0) / Math.max(1, sharpes.length)
  const variance = sharpes.length < 2 ? 0 : sharpes.reduce((sum, value) => sum + (value - average) ** 2, 0) / (sharpes.length - 1)
  const { dsr, expectedMaximum } = deflatedSharpeRatio({
    sharpe: moments.sharpe,
    count: moments.count,
    skewness: moments.skewness,
    kurtosis: moments.kurtosis,
    trials,
    sharpeVariance: variance,
  })
  return { trials, sharpe: moments.sharpe, expectedMaximum, dsr }
}

/** [first quote, last quote + 1 ms) of a quote set: the period a walk-forward splits when no --from / --to is given. */
export async function quotePeriodOf(file: string, range: { from?: number | undefined; to?: number | undefined }): Promise<Window> {
  const { openCachedQuoteReplay } = await import('./trial.js')
  const source = await openCachedQuoteReplay(file)
  let first: number | undefined
  let last: number | undefined
  // The first block with a quote is enough when the end is given or the source knows its last time (a store);
  // a recording is read to its end for its last quote.
  const lastKnown = range.to !== undefined || source.lastTime !== undefined
  for await (const block of source.blocks({ from: range.from, to: range.to })) {
    if (block.length === 0) continue
    first ??= block.time(0)
    last = block.time(block.length - 1)
    if (lastKnown) break
  }
  if (first === undefined || last === undefined)
    throw new Error(`${file} holds no quotes${range.from === undefined && range.to === undefined ? '' : ' in the range'}`)
  return { from: range.from ?? first, to: range.to ?? Math.max(last, source.lastTime ?? last) + 1 }
}
