import { z } from 'zod'

// The `optimize:` section of a config (`deltaflow optimize`): what to search, how to sample it, what to maximise, and
// how to validate out of sample. Paths are checked against the strategy's own config schema by the optimiser, before
// any trial runs (src/backtest/optimize/check-space.ts).

const rangeSchema = z
  .strictObject({
    min: z.number(),
    max: z.number(),
    /** Grid: the distance between two values (default: 5 values from min to max; log scale: a ratio). */
    step: z.number().positive().optional(),
    scale: z.enum(['linear', 'log']).default('linear'),
    type: z.enum(['integer', 'real']).default('real'),
  })
  .superRefine((range, context) => {
    if (range.max < range.min) {
      context.addIssue({ code: 'custom', message: `expected max ≥ min, received min ${range.min} and max ${range.max}`, path: ['max'] })
    }
    if (range.scale === 'log' && range.min <= 0) {
      context.addIssue({ code: 'custom', message: `expected min > 0 on a log scale, received ${range.min}`, path: ['min'] })
    }
    if (range.scale === 'log' && range.step !== undefined && range.step <= 1) {
      context.addIssue({ code: 'custom', message: `expected a log-scale step (a ratio) above 1, received ${range.step}`, path: ['step'] })
    }
  })

/** One parameter: a numeric range or a list of choices. */
export const parameterSpaceSchema = z.union(
  [z.strictObject({ range: rangeSchema }), z.strictObject({ choices: z.array(z.union([z.string(), z.number(), z.boolean()])).min(1) })],
  { error: 'expected { range: { min, max, step?, scale?, type? } } or { choices: [...] }' },
)

/** `a < b`, `a <= b`, `a + 10 <= b`, `a * 2 < b` …: two sides (a path or a number, optionally ± or × a number) and a comparison. */
const constraintText = z.string().min(1)

export const optimizeConfigSchema = z.strictObject({
  /** Config paths (`strategies.0.config.levels`) → their range or choices, in the order the samplers use. */
  space: z.record(z.string().min(1), parameterSpaceSchema).refine((space) => Object.keys(space).length > 0, {
    error: 'expected at least one parameter',
  }),
  /** Relations candidates must satisfy; a candidate failing one is skipped (and counted). */
  constraints: z.array(constraintText).default([]),
  sampler: z.enum(['grid', 'random', 'halton']).default('grid'),
  /** Candidates drawn by random and halton (not grid: its size is the product of the steps). */
  trials: z.number().int().min(1).max(100_000).optional(),
  /** Seeds the samplers and the fill model (`--seed` overrides it). */
  seed: z.number().int().min(0).default(1),
  /** Successive halving in each in-sample window: score all on a short window, keep the best fraction on longer ones. */
  halving: z.strictObject({ keep: z.number().gt(0).lt(1), rounds: z.number().int().min(1).max(10) }).optional(),
  objective: z.enum(['sharpe', 'sortino', 'calmar', 'return', 'excess']).default('sharpe'),
  /** A candidate breaking one is ranked after every candidate that does not. */
  limits: z.strictObject({ maxDrawdown: z.number().positive().optional(), minTrades: z.number().int().min(0).optional() }).default({}),
  walkForward: z
    .strictObject({
      folds: z.number().int().min(1).max(50).default(4),
      /** A fraction of each fold's window (0.75) or a duration ("3d", "12h", "90m"). */
      inSample: z
        .union([z.number().gt(0).lt(1), z.string().regex(/^\d+(\.\d+)?[mhd]$/, 'expected a duration such as 3d, 12h or 90m')])
        .default(0.75),
      mode: z.enum(['rolling', 'anchored']).default('rolling'),
    })
    .default({ folds: 4, inSample: 0.75, mode: 'rolling' }),
})

export type OptimizeConfig = z.output<typeof optimizeConfigSchema>
export type ParameterSpace = z.output<typeof parameterSpaceSchema>
