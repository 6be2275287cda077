import { z } from 'zod'
import { canonicalJson, type StrategyState } from '../../src/index.js'
import type { LadderConfig } from './ladder-config.js'

/** The key of the ladder's record in the strategy's journal state. */
export const ladderStateKey = 'ladder'

/**
 * The key of a flag kept beside the record: whether the retry timer has work (the ladder runs and a level failed).
 * The timer fires every retrySeconds for the life of the bot and reads this primitive instead of the whole ladder;
 * a state written before the flag existed has none, and the timer reads the ladder then.
 */
export const retryDueKey = 'retryDue'

/** Whether the retry timer has levels to place again. */
export function retryDue(ladder: LadderState): boolean {
  return ladder.running && ladder.levels.some((level) => level.phase === 'failed')
}

/** Writes the ladder and its retry flag: every write of the ladder goes through here. */
export function writeLadder(state: StrategyState, ladder: LadderState): void {
  state.set(ladderStateKey, ladder)
  state.set(retryDueKey, retryDue(ladder))
}

const levelStateSchema = z.strictObject({
  /** Orders placed for this level so far, minus one: the intent key's `gen-N`. */
  generation: z.number().int().min(0),
  /** The side of the current order (a flipped level trades the ladder's opposite side). */
  side: z.enum(['sell', 'buy']),
  /** Id of the current order's intent. */
  intentId: z.string().min(1),
  /**
   * open: the current order is live or on its way; retired: filled with onFill retire; halted: cancelled from outside
   * or refused by a risk limit; failed: the current order's intent failed, the level is placed again at the next retry.
   */
  phase: z.enum(['open', 'retired', 'halted', 'failed']),
  /** The last status heard of the current order (PLACED until the first update). */
  status: z.string().min(1),
  /** Orders of this level that filled. */
  fills: z.number().int().min(0),
  /** The ladder asked for this order's cancellation when it stopped: its CANCELLED means "place again on start". */
  cancelRequested: z.boolean(),
})

export const ladderStateSchema = z.strictObject({
  /** What the open orders were built from; a different config on start replaces the ladder. */
  fingerprint: z.string(),
  /** Bumped when the config changes, so the new ladder's intent keys never meet the old ones. */
  epoch: z.number().int().min(0),
  running: z.boolean(),
  /** onStop calls so far (keys of the cancel intents). */
  stops: z.number().int().min(0),
  levels: z.array(levelStateSchema),
})

export type LevelState = z.output<typeof levelStateSchema>
export type LadderState = z.output<typeof ladderStateSchema>

/** Everything the level orders are built from; onFill, cancelOnStop and retrySeconds may change without replacing the ladder. */
export function ladderFingerprint(config: LadderConfig): string {
  const { onFill: _onFill, cancelOnStop: _cancelOnStop, retrySeconds: _retrySeconds, ...orderTerms } = config
  return canonicalJson(orderTerms)
}

/** The intent key of a level's order: unique per config epoch, level and generation. */
export function levelKey(epoch: number, index: number, generation: number): string {
  return `e${epoch}/level-${index}/gen-${generation}`
}
