import { z } from 'zod'
import type { StrategyState } from '../../src/index.js'

const amountText = z
  .string()
  .regex(/^\d+$/)
  .transform((value) => BigInt(value))

/** The order of one generation: what was asked, under which key, and what has been heard of it. */
const generationSchema = z.strictObject({
  /** 1 for the first post, then one more per re-post. */
  generation: z.number().int().positive(),
  key: z.string(),
  /** The id the runtime gives the intent (same key and content), so updates and the cancel can name it. */
  intentId: z.string(),
  /** Unix seconds. */
  expiry: z.number().int().positive(),
  makerAmount: amountText,
  takerAmount: amountText,
  /** The last status an order update told of its order; null until one arrives. */
  heard: z.string().nullable(),
  /** What the executor said of the intent: placed an order, or placed none (refused by a risk limit, failed). */
  placement: z.enum(['pending', 'placed', 'not-placed']),
  /** The strategy asked for its cancellation (on stop): a CANCELLED that follows is expected, not the end. */
  cancelRequested: z.boolean(),
})

export type Generation = z.output<typeof generationSchema>

const posterStateSchema = z.strictObject({
  /** Generations posted so far (each a new intent key). */
  posts: z.number().int().min(0),
  /** The generation in play; absent between an expiry and the next quote. */
  current: generationSchema.optional(),
  /** Raw makerAsset units sold and takerAsset units received, over every fill of every generation. */
  sold: amountText,
  received: amountText,
  /** Journal ids of the fills counted in sold/received (a delivery may come twice after a crash). */
  countedFills: z.array(z.number().int()),
  /** Set once the strategy posts no more. */
  finished: z.strictObject({ reason: z.enum(['filled', 'cancelled', 'max-posts']), at: z.number() }).optional(),
})

export type PosterState = z.output<typeof posterStateSchema>

const stateKey = 'poster'

/** The poster's state from the journal, or the initial one. */
export function readPosterState(state: StrategyState): PosterState {
  return state.get(stateKey, posterStateSchema) ?? { posts: 0, sold: 0n, received: 0n, countedFills: [] }
}

/** Stores the poster's state (bigints as decimal strings); kept only if the handler succeeds. */
export function writePosterState(state: StrategyState, value: PosterState): void {
  state.set(stateKey, value)
}
