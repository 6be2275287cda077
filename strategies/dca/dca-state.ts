import { z } from 'zod'
import type { StrategyState } from '../../src/index.js'

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

export const dcaStateSchema = z.object({
  /** The next slot of the schedule (0 … orders − 1) to place or skip. */
  nextSlot: z.number().int().min(0),
  /** Clock ms from which the next slot may start; null before the first run. */
  nextDueAt: z.number().int().nullable(),
  /** Clock ms since which a due slot waits for the guard (action pause); null when not waiting. */
  pausedSince: z.number().int().nullable(),
  /** Clock ms when the schedule ended (every slot placed or skipped and every order settled). */
  finishedAt: z.number().int().nullable(),
  orders: z.array(orderRecordSchema),
  skipped: z.array(skipRecordSchema),
})

export type DcaState = z.output<typeof dcaStateSchema>

const guardQuoteSchema = z.object({ srcAmount: amountSchema, destAmount: amountSchema, receivedAt: z.number().int() })

/** The latest quote of one slice, as the guard reads it. */
export type GuardQuote = z.output<typeof guardQuoteSchema>

const scheduleKey = 'schedule'
const guardQuoteKey = 'guardQuote'
const wakeKey = 'wakeAt'

export function emptyDcaState(): DcaState {
  return { nextSlot: 0, nextDueAt: null, pausedSince: null, finishedAt: null, orders: [], skipped: [] }
}

export function readDcaState(state: StrategyState): DcaState {
  return state.get(scheduleKey, dcaStateSchema) ?? emptyDcaState()
}

export function writeDcaState(state: StrategyState, value: DcaState): void {
  state.set(scheduleKey, value)
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
