import { createIntent, type IntentRequest } from '../../src/index.js'
import type { LadderConfig } from './ladder-config.js'
import { type LadderSide, levelOrder } from './ladder-orders.js'
import { type LevelState, levelKey } from './ladder-state.js'

export type LevelIntentParameters = {
  config: LadderConfig
  epoch: number
  index: number
  side: LadderSide
  generation: number
}

/** The LIMIT intent of one level's order (never partially fillable: a level fills whole or not at all). */
export function levelIntent({ config, epoch, index, side, generation }: LevelIntentParameters): IntentRequest {
  const order = levelOrder(config, index, side)
  // The config schema checked every (level, side) the ladder can trade.
  if (order === undefined) throw new RangeError(`level ${index} has no positive price on the ${side} side`)
  return {
    key: levelKey(epoch, index, generation),
    intent: {
      kind: 'limit',
      chainId: config.chainId,
      srcToken: order.srcToken,
      destToken: order.destToken,
      srcAmount: order.srcAmount,
      destAmount: order.destAmount,
      partiallyFillable: false,
      validitySeconds: config.validitySeconds,
    },
  }
}

/**
 * The id the runtime will give this request (the same function stamps it), so order updates can be matched to the
 * level: an order's intentId names the level and generation it belongs to.
 */
export function intentIdOf(strategy: string, request: IntentRequest): string {
  return createIntent({ content: { ...request.intent, strategy }, key: request.key, clock: { now: () => 0 } }).id
}

/** A level's order as intent and state: generation `generation` on `side`, open, nothing heard yet. */
export function placeLevel(
  strategy: string,
  parameters: LevelIntentParameters & { fills: number },
): { request: IntentRequest; level: LevelState } {
  const request = levelIntent(parameters)
  return {
    request,
    level: {
      generation: parameters.generation,
      side: parameters.side,
      intentId: intentIdOf(strategy, request),
      phase: 'open',
      status: 'PLACED',
      fills: parameters.fills,
      cancelRequested: false,
    },
  }
}
