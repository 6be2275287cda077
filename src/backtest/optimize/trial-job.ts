import { z } from 'zod'
import { backtestSummarySchema } from '../backtest-result.js'
import { contentReferenceSchema } from './redis-content-store.js'
import type { TrialResult } from './trial.js'

// What a trial is on the queue (queue-executor.ts puts it there, queue-worker.ts runs it): the spec as the optimiser
// made it, and its config and quote set by content (SHA-256 in the side store), so that a worker on another machine
// runs the optimiser's bytes. Both ends parse what they read from Redis with these schemas.

/** The BullMQ queue every optimiser and worker of a Redis share (runs are told apart by the job ids). */
export const trialQueueName = 'deltaflow-trials'

/** The name of every trial job (BullMQ jobs carry one). */
export const trialJobName = 'trial'

/** The suffixes openQuoteReplay tells the kind of a quote set by: a worker's cached copy keeps its set's. */
export const quoteSuffixes = ['.sqlite', '.jsonl.gz', '.jsonl'] as const

export type QuoteSuffix = (typeof quoteSuffixes)[number]

const overrideSchema = z.object({ path: z.string(), value: z.string() })

export const trialJobSchema = z.object({
  /** The deltaflow version of the optimiser: a worker of another version refuses the trial. */
  version: z.string(),
  /** The run's id (a UUID): the prefix of its job ids and its side-store claim. */
  run: z.string().min(1),
  /** The TrialSpec, paths as the optimiser's machine has them (configFile also anchors relative plugin paths). */
  spec: z.object({
    id: z.string().min(1),
    configFile: z.string().min(1),
    overrides: z.array(overrideSchema),
    quotes: z.string().min(1),
    from: z.number().int(),
    to: z.number().int(),
    seed: z.number().int(),
  }),
  /** The config's text, by content. */
  config: contentReferenceSchema,
  /** The quote set, by content, with the suffix its kind is told by. */
  quotes: contentReferenceSchema.extend({ suffix: z.enum(quoteSuffixes) }),
})

export type TrialJob = z.infer<typeof trialJobSchema>

const returnMomentsSchema = z.object({ count: z.number().int(), sharpe: z.number().nullable(), skewness: z.number(), kurtosis: z.number() })

/** A TrialResult as a worker returned it (JSON through Redis). */
export const trialResultSchema = z.object({
  id: z.string(),
  summary: backtestSummarySchema.optional(),
  tradesHash: z.string(),
  error: z.string().optional(),
  returns: returnMomentsSchema.optional(),
})

/** Parses a worker's answer for the trial `id`: a TrialResult, or one with `error` saying what was wrong with it. */
export function trialResultOf(id: string, value: unknown): TrialResult {
  const parsed = trialResultSchema.safeParse(value)
  if (!parsed.success || parsed.data.id !== id) {
    const problem = parsed.success ? `it is for trial ${parsed.data.id}` : z.prettifyError(parsed.error).split('\n').slice(0, 3).join('; ')
    return { id, tradesHash: '', error: `the worker's result is not a trial result: ${problem}` }
  }
  const { summary, error, returns, tradesHash } = parsed.data
  return { id, tradesHash, ...(summary ? { summary } : {}), ...(error === undefined ? {} : { error }), ...(returns ? { returns } : {}) }
}

/** The BullMQ job id of a trial: the run's id and the trial's (BullMQ refuses ':' in an id; the encoding is one-to-one). */
export function trialJobId(run: string, trialId: string): string {
  return `${run}.${encodeURIComponent(trialId)}`
}

/** The suffix of a quote set's file name that openQuoteReplay knows, or undefined. */
export function quoteSuffixOf(file: string): QuoteSuffix | undefined {
  return quoteSuffixes.find((suffix) => file.endsWith(suffix))
}
