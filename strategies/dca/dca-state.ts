import { z } from 'zod'
import type { StrategyState } from '../../src/index.js'
import { committedBy } from './dca-budget.js'

// What the dca strategy keeps in its journal state. Amounts are stored as decimal strings (state is JSON) and read
// back as bigint; times are clock ms.

const amountSchema = z
  .string()
  .regex(/^\d{1,78}$/)
  .transform((value) => BigInt(value))

/**
 * Where one TWAP order of the schedule stands:
 * - placed: asked for, not yet seen in the journal;
 * - open: the journal has it and it is not final;
 * - ended: final without all its slices (expired, cancelled, failed): settled at the next quote or timer, once the
 *   fills journaled with its final status have been heard;
 * - settled: its budget use is known (what its fills spent; the whole total when COMPLETED);
 * - lost: never seen within placementTimeoutSeconds, and no intent result said why. Its amount stays committed, so the
 *   budget holds even if the order turns up later (it is then followed as open again);
 * - failed: the executor ended its intent `failed` or `refused` without an order (`reason` says why). It commits
 *   nothing: no order exists for it, and its intent id is never placed again (the slot is placed again under a new key
 *   or skipped).
 */
export const orderPhases = ['placed', 'open', 'ended', 'settled', 'lost', 'failed'] as const
export type OrderPhase = (typeof orderPhases)[number]

const orderRecordSchema = z.object({
  slot: z.number().int().min(0),
  key: z.string(),
  intentId: z.string(),
  /** The intent exactly as emitted (amounts as strings): re-emitting it after a restart gives the same intent id. */
  intent: z.record(z.string(), z.unknown()),
  totalSrcAmount: amountSchema,
  phase: z.enum(orderPhases),
  orderId: z.string().nullable(),
  orderStatus: z.string().nullable(),
  spent: amountSchema,
  received: amountSchema,
  /** Journal ids of the fills counted (a fill delivered twice is counted once). */
  fillIds: z.array(z.number().int()),
  placedAt: z.number().int(),
  settledAt: z.number().int().nullable(),
  /** Placements of this slot before this one (0: the first, key `twap-<slot>`; n: key `twap-<slot>-r<n>`). */
  attempt: z.number().int().min(0).default(0),
  /** Clock ms when its intent was told failed or refused; null otherwise. */
  failedAt: z.number().int().nullable().default(null),
  /** Why its intent failed or was refused, as the executor told it; null otherwise. */
  reason: z.string().nullable().default(null),
})

export type OrderRecord = z.output<typeof orderRecordSchema>

const skipRecordSchema = z.object({ slot: z.number().int().min(0), at: z.number().int(), reason: z.string() })

export type SkipRecord = z.output<typeof skipRecordSchema>

/**
 * The schedule's settled orders, summed up: their records are kept apart (readSettledOrders), so that the handlers,
 * which run on every fill and status change, read and write only the orders still moving.
 */
function noneSettled(): SettledSummary {
  return { orders: 0, committed: 0n, spent: 0n, received: 0n }
}

const settledSummarySchema = z.object({
  orders: z.number().int().min(0),
  /** What the settled orders hold of the budget (committedBy of each). */
  committed: amountSchema,
  spent: amountSchema,
  received: amountSchema,
})

export type SettledSummary = z.output<typeof settledSummarySchema>

export const dcaStateSchema = z.object({
  /** The next slot of the schedule (0 … orders − 1) to place or skip. */
  nextSlot: z.number().int().min(0),
  /** Clock ms from which the next slot may start; null before the first run. */
  nextDueAt: z.number().int().nullable(),
  /** Clock ms since which a due slot waits for the guard (action pause); null when not waiting. */
  pausedSince: z.number().int().nullable(),
  /** Clock ms when the schedule ended (every slot placed or skipped and every order settled). */
  finishedAt: z.number().int().nullable(),
  /** The orders not yet settled (and, in a schedule read whole or stored before settled orders were kept apart, the settled ones). */
  orders: z.array(orderRecordSchema),
  skipped: z.array(skipRecordSchema),
  /** The settled orders kept apart (none in a schedule read whole, or stored before they were kept apart). */
  settled: settledSummarySchema.default(noneSettled),
})

export type DcaState = z.output<typeof dcaStateSchema>

const guardQuoteSchema = z.object({ srcAmount: amountSchema, destAmount: amountSchema, receivedAt: z.number().int() })

/** The latest quote of one slice, as the guard reads it. */
export type GuardQuote = z.output<typeof guardQuoteSchema>

const settledOrdersSchema = z.array(orderRecordSchema)

const scheduleKey = 'schedule'
const settledOrdersKey = 'settledOrders'
const guardQuoteKey = 'guardQuote'
const wakeKey = 'wakeAt'

export function emptyDcaState(): DcaState {
  return { nextSlot: 0, nextDueAt: null, pausedSince: null, finishedAt: null, orders: [], skipped: [], settled: noneSettled() }
}

/** The schedule as the handlers move it: the orders not yet settled, the settled ones summed up in `settled`. */
export function readDcaState(state: StrategyState): DcaState {
  return state.get(scheduleKey, dcaStateSchema) ?? emptyDcaState()
}

/**
 * The records that settled after the first `start` of them, written by one handler: each write appends one such part
 * instead of rewriting every settled order (which made a schedule's writes grow with the orders it settled).
 */
function settledPartKey(start: number): string {
  return `${settledOrdersKey}@${start}`
}

/**
 * The settled orders kept apart from the schedule, in the order they settled: those under `settledOrders`, then the
 * parts appended after them, each keyed by how many came before it, up to `count` (the schedule's `settled.orders`) or
 * the first part missing; with the keys of the parts read.
 */
function settledPartsOf(state: StrategyState, count: number): { records: OrderRecord[]; partKeys: string[] } {
  const records = state.get(settledOrdersKey, settledOrdersSchema) ?? []
  const partKeys: string[] = []
  while (records.length < count) {
    const key = settledPartKey(records.length)
    const part = state.get(key, settledOrdersSchema)
    if (part === undefined || part.length === 0) break
    partKeys.push(key)
    records.push(...part)
  }
  return { records, partKeys }
}

/** The `count` settled orders kept apart from the schedule (its `settled.orders`), in the order they settled. */
export function readSettledOrders(state: StrategyState, count: number): OrderRecord[] {
  const { records } = settledPartsOf(state, count)
  if (records.length < count) {
    throw new Error(
      `dca state: the schedule counts ${count} settled orders, but the records after the first ${records.length} (key "${settledPartKey(records.length)}") are missing`,
    )
  }
  return records
}

/**
 * The schedule with every order, the settled ones included (`settled` is then none): for an event of an order that
 * settled already, and for what reads the whole schedule (a restart's replay, the summary).
 */
export function readWholeDcaState(state: StrategyState, schedule: DcaState = readDcaState(state)): DcaState {
  if (schedule.settled.orders === 0) return schedule
  return {
    ...schedule,
    orders: sortedByPlacement([...readSettledOrders(state, schedule.settled.orders), ...schedule.orders]),
    settled: noneSettled(),
  }
}

/** Placement order: slot by slot, each slot's attempts in turn (the order in which the schedule appends records). */
function sortedByPlacement(records: OrderRecord[]): OrderRecord[] {
  return records.sort((left, right) => left.slot - right.slot || left.attempt - right.attempt)
}

/**
 * A settled order that the schedule's moves no longer look at: not of the latest slot placed (whose placements the
 * next attempt's key counts, and which a failed placement places again).
 */
function isKeptApart(record: OrderRecord, schedule: DcaState): boolean {
  return record.phase === 'settled' && record.slot < schedule.nextSlot - 1
}

/**
 * Keeps the schedule. Orders that settled since it was read move to the settled orders (isKeptApart), and their
 * figures to `settled`: appended as a part of their own after the `settled.orders` kept already, so a write costs what
 * it moves. A schedule read whole (`settled` none) holds every settled order, which are then all there is of them:
 * they replace what `settledOrders` held, and the parts after it are deleted. The keys are written by the same
 * handler, which the journal commits at once.
 */
export function writeDcaState(state: StrategyState, value: DcaState): void {
  if (!value.orders.some((record) => isKeptApart(record, value))) {
    state.set(scheduleKey, value)
    return
  }
  const moving = value.orders.filter((record) => isKeptApart(record, value))
  const settled = { ...value.settled, orders: value.settled.orders + moving.length }
  for (const record of moving) {
    settled.committed += committedBy(record)
    settled.spent += record.spent
    settled.received += record.received
  }
  if (value.settled.orders > 0) state.set(settledPartKey(value.settled.orders), moving)
  else {
    deleteSettledParts(state)
    state.set(settledOrdersKey, moving)
  }
  state.set(scheduleKey, { ...value, orders: value.orders.filter((record) => !isKeptApart(record, value)), settled })
}

/** Deletes the parts appended after `settledOrders`, as far as the stored schedule counts them. */
function deleteSettledParts(state: StrategyState): void {
  for (const key of settledPartsOf(state, readDcaState(state).settled.orders).partKeys) state.delete(key)
}

export function readGuardQuote(state: StrategyState): GuardQuote | undefined {
  return state.get(guardQuoteKey, guardQuoteSchema)
}

export function writeGuardQuote(state: StrategyState, quote: GuardQuote): void {
  state.set(guardQuoteKey, quote)
}

/** When the schedule next needs a look (wakeTimeOf); 0 when unknown (a state from before it was kept). */
export function readWakeTime(state: StrategyState): number {
  const value = state.get(wakeKey)
  return typeof value === 'number' ? value : value === null ? Number.POSITIVE_INFINITY : 0
}

export function writeWakeTime(state: StrategyState, at: number): void {
  // JSON has no Infinity: null stands for never.
  state.set(wakeKey, Number.isFinite(at) ? at : null)
}
