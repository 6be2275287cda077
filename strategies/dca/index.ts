import { defineStrategy, type StrategyContext, type StrategyOutput } from '../../src/index.js'
import { type DcaConfig, dcaConfigSchema, nominalSliceAmountOf } from './dca-config.js'
import {
  advanceSchedule,
  applyFill,
  applyIntentResult,
  applyOrderUpdate,
  replayPlacedOrders,
  settleEndedOrders,
  summarizeSchedule,
  wakeOnPrice,
  wakeOnQuote,
  wakeTimeOf,
} from './dca-schedule.js'
import {
  type DcaState,
  readDcaState,
  readGuardQuote,
  readWakeTime,
  readWholeDcaState,
  writeDcaState,
  writeGuardQuote,
  writeWakeTime,
} from './dca-state.js'
import { isWithinPriceGuard } from './price-guard.js'

/** The schedule an event of the intent `intentId` moves: read whole when its order is one of the settled ones kept apart. */
function scheduleOf(context: StrategyContext<DcaConfig>, intentId: string): DcaState {
  const schedule = readDcaState(context.state)
  if (schedule.orders.some((record) => record.intentId === intentId)) return schedule
  return readWholeDcaState(context.state, schedule)
}

/** Moves the schedule on from `schedule` and keeps the result; returns what to ask for. */
function advance(context: StrategyContext<DcaConfig>, schedule: DcaState): StrategyOutput {
  const { config, strategy, now, state, logger } = context
  const step = advanceSchedule(schedule, { config, strategy, now: now(), guardQuote: readGuardQuote(state), logger })
  writeDcaState(state, step.schedule)
  writeWakeTime(state, wakeTimeOf(step.schedule, config, now(), readGuardQuote(state)))
  return step.requests
}

/**
 * Quotes and timers: orders that ended are settled first (their fills have all been heard by then), then the schedule
 * moves. Before the schedule's wake time nothing can change, and the schedule is not even read.
 */
function settleAndAdvance(context: StrategyContext<DcaConfig>, trigger: 'quote' | 'timer'): StrategyOutput {
  const wakeAt = readWakeTime(context.state)
  if (wakeAt === wakeOnQuote || wakeAt === wakeOnPrice ? trigger === 'timer' : context.now() < wakeAt) return []
  return advance(context, settleEndedOrders(readDcaState(context.state), context.now(), context.logger))
}

/**
 * DCA: spends `budget` raw units of `srcToken` on `destToken` over `periodSeconds`, as `orders` Delta TWAP orders
 * (`twap-sell`) of `slicesPerOrder` slices each, one at a time. The slice interval is
 * floor(periodSeconds / (orders × slicesPerOrder)) seconds (at least 60); order k may start once order k − 1 is final
 * and `slicesPerOrder` intervals after order k − 1 started. Each order's total is the budget not yet committed shared
 * over the slots left, so the budget is never exceeded, and what an order did not spend (an EXPIRED or CANCELLED TWAP
 * with unfilled slices) goes back to the budget for the later orders. When the last order leaves something unspent,
 * it stays unspent.
 *
 * Price guard (`guard`, optional): a quote of one nominal slice (budget / (orders × slicesPerOrder)) from `source`
 * (market or delta) is checked when a slot is due, against `maxPrice` and/or `minPrice`, each a ratio of raw amounts
 * `{ srcAmount, destAmount }`. Out of range, `action: skip` gives the slot up (its share stays in the budget and is
 * spread over the later slots; the schedule keeps its pace), `action: pause` holds the slot until the price is back
 * (the rest of the schedule shifts by the wait). A missing or stale quote (older than `maxQuoteAgeSeconds`) holds the
 * slot whatever the action. With `enforceOnSlices` (default), maxPrice is also signed into every TWAP as its least
 * output per slice, so no slice of a running order fills above it.
 *
 * Failed placements: an intent the executor ends `failed` without an order (a 5xx after its retries, an unreadable
 * answer, an RPC fault) commits nothing, and its slot is placed again `retrySeconds` (60) later under a new key
 * (`twap-<slot>-r<n>`), at most `retriesPerSlot` (5) times; then the slot is skipped. An intent `refused` (a risk limit,
 * the kill switch, a pricing error the venue calls final) skips its slot at once. A skipped slot's share stays in the
 * budget and is spread over the later slots, as with the guard's `skip`.
 *
 * Other config: `maxSlippageBps` (50), `maxPriceImpactPercent` (2), `checkIntervalSeconds` (30, clock seconds between
 * schedule checks besides quotes and order events), `placementTimeoutSeconds` (600: an order neither in the journal
 * nor told failed by then is given up; its amount stays committed, so a late order cannot exceed the budget).
 *
 * Restart: the whole schedule (slot, due time, every order with its fills, skipped slots, failed placements) is journal
 * state; the orders settled before the latest slot are kept under a key of their own, summed up in the schedule, so
 * that a fill or a status change reads and writes only the orders still moving. On start, orders asked for but never seen are asked for again with the same key and content, hence the same
 * intent id (the executor places an intent once, and answers one that failed meanwhile with its failure); nothing
 * else is emitted twice.
 *
 * @example
 * strategies:
 *   - name: dca-weth
 *     use: dca
 *     config: { chainId: 1, srcToken: USDC, destToken: WETH, budget: "1000000000", periodSeconds: 86400, orders: 24,
 *               slicesPerOrder: 6, guard: { maxPrice: { srcAmount: "2500000000", destAmount: "1000000000000000000" } } }
 */
export default defineStrategy({
  apiVersion: 1,
  name: 'dca',
  configSchema: dcaConfigSchema,
  subscriptions: (config) =>
    config.guard
      ? [
          {
            source: config.guard.source,
            chainId: config.chainId,
            srcToken: config.srcToken,
            destToken: config.destToken,
            amount: nominalSliceAmountOf(config),
            side: 'SELL',
          },
        ]
      : [],
  timers: (config) => [config.checkIntervalSeconds * 1000],
  onStart: (context) => {
    const schedule = readDcaState(context.state)
    const replayed = replayPlacedOrders(schedule, context.strategy)
    if (replayed.length > 0)
      context.logger.info({ orders: replayed.map((request) => request.key) }, 'dca asks again for orders not yet seen')
    const advanced = advance(context, schedule)
    return [...replayed, ...(Array.isArray(advanced) ? advanced : [])]
  },
  onQuote: (quote, context) => {
    // Only a quote that can decide the due slot is kept. One older than maxQuoteAgeSeconds at the wake time can never
    // be the one the guard reads; while the guard pauses the slot, one outside its prices keeps the pause as it is
    // (the guard quote kept is then the one that paused it, and nothing is read or written).
    const wakeAt = readWakeTime(context.state)
    const { guard } = context.config
    if (wakeAt === wakeOnPrice) {
      if (guard && !isWithinPriceGuard(guard, quote)) return []
    } else if (wakeAt !== wakeOnQuote && context.now() < wakeAt - (guard?.maxQuoteAgeSeconds ?? 0) * 1000) return []
    writeGuardQuote(context.state, { srcAmount: quote.srcAmount, destAmount: quote.destAmount, receivedAt: quote.receivedAt })
    return settleAndAdvance(context, 'quote')
  },
  onTimer: (_event, context) => settleAndAdvance(context, 'timer'),
  onOrderUpdate: (event, context) =>
    advance(context, applyOrderUpdate(scheduleOf(context, event.order.intentId), event, context.now(), context.logger)),
  onIntentResult: (event, context) => {
    const { config, now, logger } = context
    const schedule = scheduleOf(context, event.intentId)
    const next = applyIntentResult(schedule, event, { config, now: now(), logger })
    // Accepted and other results change nothing: the schedule is not even written.
    return next === schedule ? [] : advance(context, next)
  },
  onFill: (event, context) => {
    const schedule = applyFill(scheduleOf(context, event.order.intentId), event, context.logger)
    writeDcaState(context.state, schedule)
    writeWakeTime(context.state, wakeTimeOf(schedule, context.config, context.now(), readGuardQuote(context.state)))
  },
  onStop: ({ config, state, logger }) => {
    const summary = summarizeSchedule(readDcaState(state), config.budget)
    logger.info(
      {
        committed: String(summary.committed),
        remaining: String(summary.remaining),
        spent: String(summary.spent),
        received: String(summary.received),
        ordersPlaced: summary.ordersPlaced,
        placementsFailed: summary.placementsFailed,
        slotsSkipped: summary.slotsSkipped,
        finished: summary.finished,
      },
      'dca stopped',
    )
  },
})
