import { defineStrategy, type IntentRequest, isFinalStatus, type StrategyContext } from '../../src/index.js'
import { type LadderConfig, ladderConfigSchema } from './ladder-config.js'
import { intentIdOf, levelIntent, placeLevel } from './ladder-intents.js'
import { gridIndexOf, oppositeSide } from './ladder-orders.js'
import { formatPrice, gridPrice } from './ladder-prices.js'
import {
  type LadderState,
  type LevelState,
  ladderFingerprint,
  ladderStateKey,
  ladderStateSchema,
  retryDue,
  retryDueKey,
  writeLadder,
} from './ladder-state.js'

type Context = StrategyContext<LadderConfig>

/** A fresh ladder: every level on the ladder's side, generation 0. */
function placeLadder(context: Context, epoch: number, stops: number): { ladder: LadderState; requests: IntentRequest[] } {
  const { config, strategy } = context
  const placed = Array.from({ length: config.levels }, (_, index) =>
    placeLevel(strategy, { config, epoch, index, side: config.side, generation: 0, fills: 0 }),
  )
  return {
    ladder: { fingerprint: ladderFingerprint(config), epoch, running: true, stops, levels: placed.map(({ level }) => level) },
    requests: placed.map(({ request }) => request),
  }
}

/** A cancel of the listed levels' current orders, or nothing when none is open. */
function cancelLevels(key: string, levels: readonly LevelState[]): IntentRequest[] {
  const intentIds = levels.filter((level) => level.phase === 'open').map((level) => level.intentId)
  return intentIds.length === 0 ? [] : [{ key, intent: { kind: 'cancel', intentIds, orderIds: [] } }]
}

/** What a level does when its current order reaches a final status: its next order, or none. */
function settleLevel(context: Context, ladder: LadderState, index: number, status: string): IntentRequest | undefined {
  const { config, strategy, logger } = context
  const level = ladder.levels[index] as LevelState
  const next = (side: LevelState['side'], fills: number) => {
    const placed = placeLevel(strategy, { config, epoch: ladder.epoch, index, side, generation: level.generation + 1, fills })
    ladder.levels[index] = placed.level
    const price = gridPrice(config, gridIndexOf(config, index, side))
    logger.info(
      { level: index, status, side, generation: placed.level.generation, price: price && formatPrice(price) },
      'ladder level placed again',
    )
    return ladder.running ? placed.request : undefined
  }
  switch (status) {
    case 'COMPLETED':
      if (config.onFill === 'retire') {
        ladder.levels[index] = { ...level, phase: 'retired', status, fills: level.fills + 1, cancelRequested: false }
        logger.info({ level: index }, 'ladder level filled and retired')
        return undefined
      }
      return next(oppositeSide(level.side), level.fills + 1)
    case 'EXPIRED':
      return next(level.side, level.fills)
    case 'CANCELLED':
      if (level.cancelRequested) return next(level.side, level.fills)
      break
  }
  ladder.levels[index] = { ...level, phase: 'halted', status }
  logger.warn({ level: index, status }, 'ladder level halted: its order ended without a fill the ladder asked for')
  return undefined
}

/** Each failed level placed again as its next generation (same side and price); returns the intents to emit. */
function placeFailedLevels(context: Context, ladder: LadderState): IntentRequest[] {
  const { config, strategy, logger } = context
  const requests: IntentRequest[] = []
  for (const [index, level] of ladder.levels.entries()) {
    if (level.phase !== 'failed') continue
    const placed = placeLevel(strategy, {
      config,
      epoch: ladder.epoch,
      index,
      side: level.side,
      generation: level.generation + 1,
      fills: level.fills,
    })
    ladder.levels[index] = placed.level
    logger.info({ level: index, status: level.status, side: level.side, generation: placed.level.generation }, 'ladder level placed again')
    requests.push(placed.request)
  }
  return requests
}

/**
 * Limit ladder: `levels` Delta LIMIT orders between `lowerPrice` and `upperPrice` (quote per base, decimal strings),
 * spaced `linear`ly or `geometric`ally, each trading `sizePerLevel` raw units of the base token. `side: sell` sells
 * base for quote at each level (a ladder above the market: level i fills once the market reaches its price);
 * `side: buy` buys base with quote (a ladder below the market). Amounts are exact: a sell asks at least
 * ceil(size · price) quote, a buy spends floor(size · price) quote for at least `size` base. Orders are never partially
 * fillable.
 *
 * A level whose order fills flips (`onFill: flip`, the default): a filled sell level places a buy of the same base
 * size one grid step below its price, and when that fills, its sell again, so each round trip earns one step.
 * Likewise a buy level flips to a sell one step above. `onFill: retire` leaves a filled level empty instead (scale-out
 * / scale-in). A level whose order expires (`validitySeconds`, default one day) is placed again, same side and price.
 * Each new order of a level is a new generation (intent key `e<epoch>/level-<i>/gen-<n>`), so it is a fresh intent;
 * the same generation emitted twice is one order. A level whose intent fails (the venue refused the signed order, or
 * the executor met an error: a 5xx after its retries, an unreadable answer, an RPC fault) is placed again as its next
 * generation at the next retry tick (`retrySeconds`, default 60), so a lasting fault costs one attempt per level per
 * tick. A level whose order is cancelled outside the strategy, or whose intent a risk limit refuses, is left alone
 * (halted). With `cancelOnStop`, onStop cancels every open level's order.
 *
 * Config: chainId; side (sell | buy); base and quote ({ address, decimals }); lowerPrice, upperPrice; levels (2 to
 * 100); spacing (linear | geometric); sizePerLevel (raw base units); validitySeconds; retrySeconds; onFill (flip |
 * retire); cancelOnStop. With flip, one step beyond the ladder's end must still be a positive price (checked).
 *
 * Restart: the ladder lives in the strategy state. onStart emits each open level's current intent again (the same
 * key and content are the same intent: nothing is placed twice; one that failed meanwhile comes back failed), and
 * places the failed levels again; fills, expiries and cancellations that happened while stopped arrive afterwards as
 * order updates and are acted on then, including re-placing the levels cancelled on stop. A config whose orders
 * differ from the stored ladder's (anything but onFill, cancelOnStop and retrySeconds) cancels the old ladder's open
 * orders and places the new ladder under a new epoch.
 */
export default defineStrategy({
  apiVersion: 1,
  name: 'ladder',
  configSchema: ladderConfigSchema,
  subscriptions: () => [],
  timers: (config) => [config.retrySeconds * 1000],
  onStart: (context) => {
    const { config, state, strategy, logger } = context
    const stored = state.get(ladderStateKey, ladderStateSchema)
    const requests: IntentRequest[] = []
    let ladder: LadderState
    if (stored === undefined || stored.fingerprint !== ladderFingerprint(config)) {
      const epoch = stored === undefined ? 0 : stored.epoch + 1
      if (stored) requests.push(...cancelLevels(`e${stored.epoch}/replaced`, stored.levels))
      const fresh = placeLadder(context, epoch, stored?.stops ?? 0)
      ladder = fresh.ladder
      requests.push(...fresh.requests)
      logger.info({ epoch, levels: config.levels, replaced: stored !== undefined }, 'ladder placed')
    } else {
      ladder = { ...stored, running: true }
      for (const [index, level] of ladder.levels.entries()) {
        if (level.phase !== 'open') continue
        const request = levelIntent({ config, epoch: ladder.epoch, index, side: level.side, generation: level.generation })
        if (intentIdOf(strategy, request) === level.intentId) requests.push(request)
        else logger.error({ level: index, intentId: level.intentId }, 'ladder level does not match its stored intent; not emitted')
      }
      requests.push(...placeFailedLevels(context, ladder))
    }
    writeLadder(state, ladder)
    return requests
  },
  onOrderUpdate: (event, context) => {
    const { state, logger } = context
    const ladder = state.get(ladderStateKey, ladderStateSchema)
    if (!ladder) return
    const index = ladder.levels.findIndex((level) => level.intentId === event.order.intentId)
    const level = ladder.levels[index]
    if (level?.phase !== 'open') {
      logger.debug({ intentId: event.order.intentId, status: event.order.status }, 'update of an order no level holds now')
      return
    }
    ladder.levels[index] = { ...level, status: event.order.status }
    const request = isFinalStatus(event.order.mode, event.order.status)
      ? settleLevel(context, ladder, index, event.order.status)
      : undefined
    writeLadder(state, ladder)
    return request
  },
  onIntentResult: (event, context) => {
    const { config, state, logger } = context
    if (event.status !== 'failed' && event.status !== 'refused') return
    const ladder = state.get(ladderStateKey, ladderStateSchema)
    if (!ladder) return
    const index = ladder.levels.findIndex((level) => level.intentId === event.intentId)
    const level = ladder.levels[index]
    if (level?.phase !== 'open') return
    if (event.status === 'failed' && event.orderId !== null) {
      // An order was signed: it may have reached the venue. The level follows it until it is final (an order the venue
      // never got is closed EXPIRED, and the level placed again then), never two orders at once.
      logger.warn({ level: index, reason: event.reason, orderId: event.orderId }, 'ladder level failed; its order is followed until final')
      return
    }
    if (event.status === 'failed') {
      ladder.levels[index] = { ...level, phase: 'failed', status: 'FAILED' }
      logger.warn(
        { level: index, reason: event.reason, retrySeconds: config.retrySeconds },
        'ladder level failed; placed again at the next retry',
      )
    } else {
      ladder.levels[index] = { ...level, phase: 'halted', status: 'REFUSED' }
      logger.warn({ level: index, reason: event.reason }, 'ladder level halted: a risk limit refused its order')
    }
    writeLadder(state, ladder)
  },
  onTimer: (_event, context) => {
    const { state } = context
    if (state.get(retryDueKey) === false) return
    const ladder = state.get(ladderStateKey, ladderStateSchema)
    if (!ladder || !retryDue(ladder)) return
    const requests = placeFailedLevels(context, ladder)
    writeLadder(state, ladder)
    return requests
  },
  onStop: (context) => {
    const { config, state } = context
    const stored = state.get(ladderStateKey, ladderStateSchema)
    if (!stored) return
    const ladder: LadderState = { ...stored, running: false, stops: stored.stops + 1 }
    const requests = config.cancelOnStop ? cancelLevels(`e${ladder.epoch}/stop-${ladder.stops}`, ladder.levels) : []
    if (config.cancelOnStop)
      ladder.levels = ladder.levels.map((level) => (level.phase === 'open' ? { ...level, cancelRequested: true } : level))
    writeLadder(state, ladder)
    return requests
  },
})
