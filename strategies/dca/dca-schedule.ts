import {
  type DeepReadonly,
  type FillEvent,
  type IntentRequest,
  type IntentResultEvent,
  intentId,
  isFinalStatus,
  type Logger,
  type OrderUpdateEvent,
  parseIntentContent,
  type StrategyIntentContent,
} from '../../src/index.js'
import { committedAmount, minDestAmountPerSlice, nextOrderAmount, remainingBudget } from './dca-budget.js'
import { type DcaConfig, intervalSecondsOf, orderSpacingMsOf } from './dca-config.js'
import type { DcaState, GuardQuote, OrderRecord } from './dca-state.js'
import { checkPriceGuard } from './price-guard.js'

// The schedule's transitions. Each takes the schedule read from state and returns the next one (and what to ask
// for); nothing here reads a clock or does I/O, so the handlers in index.ts only read, call and write.

/** A placed, open or ended order: the schedule waits for it before the next slot (one TWAP at a time). */
function isActive(record: OrderRecord): boolean {
  return record.phase === 'placed' || record.phase === 'open' || record.phase === 'ended'
}

function replaceOrder(schedule: DcaState, record: OrderRecord): DcaState {
  return { ...schedule, orders: schedule.orders.map((candidate) => (candidate.intentId === record.intentId ? record : candidate)) }
}

/** The twap-sell intent of one order of the schedule; amounts as decimal strings so it can be kept in state as is. */
export function buildTwapIntent(config: DeepReadonly<DcaConfig>, totalSrcAmount: bigint): StrategyIntentContent {
  const { guard } = config
  const enforced = guard?.maxPrice !== undefined && guard.enforceOnSlices ? guard.maxPrice : undefined
  return {
    kind: 'twap-sell',
    chainId: config.chainId,
    srcToken: config.srcToken,
    destToken: config.destToken,
    totalSrcAmount: totalSrcAmount.toString(),
    numSlices: config.slicesPerOrder,
    intervalSeconds: intervalSecondsOf(config),
    ...(enforced ? { minDestAmountPerSlice: minDestAmountPerSlice(totalSrcAmount, config.slicesPerOrder, enforced).toString() } : {}),
    maxSlippageBps: config.maxSlippageBps,
    maxPriceImpactPercent: config.maxPriceImpactPercent,
  }
}

/** The request for a stored intent, validated again (no cast of state JSON); same key and content, same intent id. */
function requestOf(strategy: string, record: OrderRecord): IntentRequest {
  const { strategy: _strategy, ...intent } = parseIntentContent({ ...record.intent, strategy })
  return { key: record.key, intent }
}

/**
 * Requests of orders placed but not yet seen in the journal: after a restart they are asked for again, because the
 * process may have stopped between keeping the state and executing the intent. The executor runs an intent id once, so
 * an order that exists is not placed twice.
 */
export function replayPlacedOrders(schedule: DcaState, strategy: string): IntentRequest[] {
  return schedule.orders.filter((record) => record.phase === 'placed').map((record) => requestOf(strategy, record))
}

/** A status change of one of the schedule's orders. A final status settles a COMPLETED order at once; others end. */
export function applyOrderUpdate(schedule: DcaState, event: DeepReadonly<OrderUpdateEvent>, now: number, logger: Logger): DcaState {
  const { order } = event
  const record = schedule.orders.find((candidate) => candidate.intentId === order.intentId)
  if (!record) {
    logger.warn({ orderId: order.id, intentId: order.intentId }, 'order update for an order the schedule does not know: ignored')
    return schedule
  }
  if (record.phase === 'settled' || record.phase === 'ended') return replaceOrder(schedule, { ...record, orderStatus: order.status })
  const final = isFinalStatus(order.mode, order.status)
  const phase = !final ? 'open' : order.status === 'COMPLETED' ? 'settled' : 'ended'
  if (record.phase === 'lost') logger.warn({ orderId: order.id, slot: record.slot }, 'an order given up as lost turned up: followed again')
  if (record.phase === 'failed')
    logger.error({ orderId: order.id, slot: record.slot }, 'an order whose intent was told failed turned up: followed again')
  if (phase !== 'open') logger.info({ orderId: order.id, slot: record.slot, status: order.status, reason: event.reason }, 'dca order final')
  return replaceOrder(schedule, {
    ...record,
    phase,
    orderId: order.id,
    orderStatus: order.status,
    settledAt: phase === 'settled' ? now : null,
  })
}

/** The intent key of a slot's placement: `twap-<slot>` first, `twap-<slot>-r<attempt>` when placed again. */
export function orderKeyOf(slot: number, attempt: number): string {
  return attempt === 0 ? `twap-${slot}` : `twap-${slot}-r${attempt}`
}

export type ApplyIntentResultParameters = {
  config: DeepReadonly<DcaConfig>
  now: number
  logger: Logger
}

/**
 * What the executor did with one of the schedule's intents. Only an intent that ended `failed` or `refused` without an
 * order changes anything: no order exists for it nor ever will (the executor answers its id with the stored outcome),
 * so its record moves to `failed` and commits nothing. The slot it was placed for then:
 * - failed (a 5xx after the retries, an unreadable answer, an RPC fault): is placed again `retrySeconds` later under a
 *   new key, at most `retriesPerSlot` times, then skipped;
 * - refused (a risk limit, the kill switch, a pricing error the venue calls final): is skipped at once, as the guard's
 *   `skip` does; the schedule keeps its pace and the slot's share is spread over the later slots.
 * A failed intent that names an order is left alone: that order is in the journal and its updates settle the record.
 */
export function applyIntentResult(
  schedule: DcaState,
  event: DeepReadonly<IntentResultEvent>,
  { config, now, logger }: ApplyIntentResultParameters,
): DcaState {
  if (event.status !== 'failed' && event.status !== 'refused') return schedule
  const record = schedule.orders.find((candidate) => candidate.intentId === event.intentId)
  if (!record) {
    logger.warn({ intentId: event.intentId, status: event.status }, 'intent result for an intent the schedule does not know: ignored')
    return schedule
  }
  if (event.orderId !== null) {
    logger.warn({ intentId: event.intentId, orderId: event.orderId, reason: event.reason }, 'dca intent failed with an order: followed')
    return schedule
  }
  if (record.phase !== 'placed' && record.phase !== 'lost') return schedule
  const reason = `${event.status}: ${event.reason ?? 'no reason given'}`
  const next = replaceOrder(schedule, { ...record, phase: 'failed', failedAt: now, reason })
  const fields = { slot: record.slot, attempt: record.attempt, intentId: record.intentId, reason }
  // Only the latest slot is placed again: a record given up as lost has had its slot's turn already.
  if (record.phase === 'lost' || record.slot !== schedule.nextSlot - 1) {
    logger.warn(fields, 'dca order given up earlier failed without an order: its amount is back in the budget')
    return next
  }
  if (event.status === 'failed' && record.attempt < config.retriesPerSlot) {
    logger.warn({ ...fields, retrySeconds: config.retrySeconds }, 'dca order failed without an order: its slot is placed again later')
    return { ...next, nextSlot: record.slot, nextDueAt: now + config.retrySeconds * 1000 }
  }
  const why = event.status === 'refused' ? reason : `placement failed ${record.attempt + 1} times, the last ${reason}`
  logger.warn({ ...fields, reason: why }, 'dca slot skipped: its order could not be placed; its share stays in the budget')
  return { ...next, skipped: [...next.skipped, { slot: record.slot, at: now, reason: why }] }
}

/** One fill of one of the schedule's orders, counted once by its journal id. */
export function applyFill(schedule: DcaState, event: DeepReadonly<FillEvent>, logger: Logger): DcaState {
  const { order, fill } = event
  const record = schedule.orders.find((candidate) => candidate.intentId === order.intentId)
  if (!record) {
    logger.warn({ orderId: order.id, fillId: fill.id }, 'fill of an order the schedule does not know: ignored')
    return schedule
  }
  if (record.fillIds.includes(fill.id)) return schedule
  if (record.phase === 'settled' && record.orderStatus !== 'COMPLETED') {
    logger.warn(
      { orderId: order.id, fillId: fill.id, spent: String(fill.spentAmount) },
      'fill heard after its order was settled: counted against the budget',
    )
  }
  return replaceOrder(schedule, {
    ...record,
    spent: record.spent + fill.spentAmount,
    received: record.received + fill.receivedAmount,
    fillIds: [...record.fillIds, fill.id],
  })
}

/**
 * Settles the orders that ended without all their slices: what their fills did not spend goes back to the budget.
 * Called on quotes and timers only: the fills journaled together with a final status are delivered right after it,
 * before any later quote or timer, so by then they are all counted.
 */
export function settleEndedOrders(schedule: DcaState, now: number, logger: Logger): DcaState {
  if (!schedule.orders.some((record) => record.phase === 'ended')) return schedule
  return {
    ...schedule,
    orders: schedule.orders.map((record) => {
      if (record.phase !== 'ended') return record
      logger.info(
        {
          orderId: record.orderId,
          slot: record.slot,
          spent: String(record.spent),
          returned: String(record.totalSrcAmount - record.spent),
        },
        'dca order settled: its unspent amount is back in the budget',
      )
      return { ...record, phase: 'settled' as const, settledAt: now }
    }),
  }
}

/** wakeTimeOf's answer when only a guard quote can move the schedule (a timer cannot): the due slot has no fresh quote. */
export const wakeOnQuote = -1

/**
 * wakeTimeOf's answer while the guard pauses a due slot (`action: pause`): only a guard quote within its prices can move
 * the schedule, so a quote outside them is neither kept nor looked at further. A schedule stored with
 * `wakeOnQuote` while paused (before this marker) moves to it on its next quote.
 */
export const wakeOnPrice = -2

/**
 * The earliest clock time at which a quote or a timer can change the schedule: now while an ended order waits to be
 * settled, the placement timeout of an order asked for, the due time of the next slot when nothing is active; never
 * while an order is open (its updates arrive as events) or once finished. A due slot that waits for the guard wakes on
 * the next quote only (`wakeOnQuote`, no fresh quote) or on the next quote within the guard's prices (`wakeOnPrice`,
 * paused by the price). Before the wake time, the strategy only keeps the guard quote.
 */
export function wakeTimeOf(schedule: DcaState, config: DeepReadonly<DcaConfig>, now: number, guardQuote: GuardQuote | undefined): number {
  if (schedule.finishedAt !== null) return Number.POSITIVE_INFINITY
  if (schedule.orders.some((record) => record.phase === 'ended')) return now
  const placed = schedule.orders.filter((record) => record.phase === 'placed')
  if (placed.length > 0) return Math.min(...placed.map((record) => record.placedAt + config.placementTimeoutSeconds * 1000))
  if (schedule.orders.some(isActive)) return Number.POSITIVE_INFINITY
  const due = schedule.nextDueAt ?? now
  if (due > now) return due
  const { guard } = config
  if (!guard) return now
  const fresh = guardQuote !== undefined && now - guardQuote.receivedAt <= guard.maxQuoteAgeSeconds * 1000
  if (schedule.pausedSince !== null) return wakeOnPrice
  return fresh ? now : wakeOnQuote
}

export type AdvanceScheduleParameters = {
  config: DeepReadonly<DcaConfig>
  strategy: string
  now: number
  /** The guard's latest quote, if any. */
  guardQuote: GuardQuote | undefined
  logger: Logger
}

export type AdvanceScheduleReturnType = { schedule: DcaState; requests: IntentRequest[] }

/**
 * Moves the schedule on at `now`: gives up orders not seen within the placement timeout, waits while an order is
 * active or the next slot is not due, then either places the slot's TWAP (the remaining budget shared over the slots
 * left), or, when the guard blocks, skips the slot (`skip`) or waits for the price (`pause`). Without a fresh quote the
 * guard is not asked and the slot waits, whatever the action. Ends the schedule when every slot is done.
 */
export function advanceSchedule(schedule: DcaState, parameters: AdvanceScheduleParameters): AdvanceScheduleReturnType {
  const { config, strategy, now, guardQuote, logger } = parameters
  if (schedule.finishedAt !== null) return { schedule, requests: [] }
  const timeoutMs = config.placementTimeoutSeconds * 1000
  let next: DcaState = {
    ...schedule,
    nextDueAt: schedule.nextDueAt ?? now,
    orders: schedule.orders.map((record) => {
      if (record.phase !== 'placed' || now - record.placedAt < timeoutMs) return record
      logger.error(
        { slot: record.slot, intentId: record.intentId },
        'dca order never appeared and no intent result said why: slot given up, its amount stays committed',
      )
      return { ...record, phase: 'lost' as const }
    }),
  }
  if (next.orders.some(isActive)) return { schedule: next, requests: [] }
  const committed = scheduleCommitted(next)
  const remaining = remainingBudget(config.budget, committed)
  const slotsLeft = config.orders - next.nextSlot
  const amount = slotsLeft > 0 ? nextOrderAmount({ remaining, slotsLeft, slicesPerOrder: config.slicesPerOrder }) : 0n
  if (slotsLeft <= 0 || amount === 0n) {
    logger.info({ committed: String(committed), remaining: String(remaining), slotsLeft }, 'dca schedule finished')
    return { schedule: { ...next, finishedAt: now, pausedSince: null }, requests: [] }
  }
  const dueAt = next.nextDueAt ?? now
  if (now < dueAt) return { schedule: next, requests: [] }

  const { guard } = config
  if (guard) {
    const fresh = guardQuote !== undefined && now - guardQuote.receivedAt <= guard.maxQuoteAgeSeconds * 1000
    if (!fresh || guardQuote === undefined) return { schedule: next, requests: [] }
    const verdict = checkPriceGuard(guard, guardQuote)
    if (!verdict.allowed) {
      if (guard.action === 'pause') {
        if (next.pausedSince === null) logger.info({ slot: next.nextSlot, reason: verdict.reason }, 'dca paused by the price guard')
        return { schedule: { ...next, pausedSince: next.pausedSince ?? now }, requests: [] }
      }
      logger.info({ slot: next.nextSlot, reason: verdict.reason }, 'dca slot skipped by the price guard')
      return {
        schedule: {
          ...next,
          nextSlot: next.nextSlot + 1,
          nextDueAt: dueAt + orderSpacingMsOf(config),
          skipped: [...next.skipped, { slot: next.nextSlot, at: now, reason: verdict.reason }],
        },
        requests: [],
      }
    }
  }
  if (next.pausedSince !== null)
    logger.info({ slot: next.nextSlot, pausedMs: now - next.pausedSince }, 'dca resumed: the price is back within the guard')

  // Placements of this slot that failed before (each without an order): this one takes the next key.
  const attempt = next.orders.filter((record) => record.slot === next.nextSlot).length
  const key = orderKeyOf(next.nextSlot, attempt)
  const intent = buildTwapIntent(config, amount)
  const id = intentId({ content: parseIntentContent({ ...intent, strategy }), key })
  const record: OrderRecord = {
    slot: next.nextSlot,
    key,
    intentId: id,
    intent: { ...intent },
    totalSrcAmount: amount,
    phase: 'placed',
    orderId: null,
    orderStatus: null,
    spent: 0n,
    received: 0n,
    fillIds: [],
    placedAt: now,
    settledAt: null,
    attempt,
    failedAt: null,
    reason: null,
  }
  logger.info(
    {
      slot: record.slot,
      attempt,
      intentId: id,
      totalSrcAmount: String(amount),
      committed: String(committed),
      remaining: String(remaining),
    },
    'dca order placed',
  )
  next = {
    ...next,
    nextSlot: next.nextSlot + 1,
    nextDueAt: now + orderSpacingMsOf(config),
    pausedSince: null,
    orders: [...next.orders, record],
  }
  return { schedule: next, requests: [{ key, intent }] }
}

export type ScheduleSummary = {
  committed: bigint
  remaining: bigint
  /** What the orders' fills spent and received. */
  spent: bigint
  received: bigint
  /** Orders placed, not counting placements that failed without an order. */
  ordersPlaced: number
  /** Placements that failed or were refused without an order. */
  placementsFailed: number
  slotsSkipped: number
  finished: boolean
}

/** The budget the schedule's orders take, the settled ones kept apart included. */
export function scheduleCommitted(schedule: DcaState): bigint {
  return committedAmount(schedule.orders) + schedule.settled.committed
}

/** Where the schedule stands, for logs and tests. */
export function summarizeSchedule(schedule: DcaState, budget: bigint): ScheduleSummary {
  const committed = scheduleCommitted(schedule)
  const { settled } = schedule
  return {
    committed,
    remaining: remainingBudget(budget, committed),
    spent: schedule.orders.reduce((sum, record) => sum + record.spent, settled.spent),
    received: schedule.orders.reduce((sum, record) => sum + record.received, settled.received),
    ordersPlaced: schedule.orders.filter((record) => record.phase !== 'failed').length + settled.orders,
    placementsFailed: schedule.orders.filter((record) => record.phase === 'failed').length,
    slotsSkipped: schedule.skipped.length,
    finished: schedule.finishedAt !== null,
  }
}
