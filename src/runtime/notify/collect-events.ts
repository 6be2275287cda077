import { z } from 'zod'
import { utcDay } from '../../domain/risk-usage.js'
import type { Journal } from '../../journal/journal.js'
import type { FillMismatch } from '../../journal/reconcile/reconcile-report.js'
import type { FormatTokenAmount } from '../token-labels.js'
import { dailySummaryMessage, previousUtcDay, utcDayRange } from './daily-summary.js'
import { enqueueEvents } from './enqueue-events.js'
import { fillMessage, intentMessage, killSwitchMessage, mismatchMessage, strategyPausedMessage } from './event-messages.js'
import type { NotificationTarget } from './resolve-targets.js'

/** The journal reads and writes the notifier uses. */
export type NotifierJournal = Pick<
  Journal,
  | 'enqueueNotifications'
  | 'notificationCursor'
  | 'fillsAfter'
  | 'fillsBetween'
  | 'lastFillId'
  | 'refusedOrFailedIntentsAfter'
  | 'lastIntentChange'
  | 'intentCountsBetween'
>

export type CollectParameters = { journal: NotifierJournal; targets: readonly NotificationTarget[]; formatAmount: FormatTokenAmount }

const intentCursorSchema = z.object({ updatedAt: z.number().int(), id: z.string() })
const botStateSchema = z.object({ paused: z.array(z.string()), killSwitch: z.string().nullable() })

/** The cursors a journal gets at its first start with notifications: history before it is not told. */
export function initializeCursors(journal: NotifierJournal, now: number): void {
  const cursors: Record<string, string> = {}
  if (journal.notificationCursor('fills') === undefined) cursors.fills = String(journal.lastFillId())
  if (journal.notificationCursor('intents') === undefined) cursors.intents = JSON.stringify(journal.lastIntentChange())
  if (journal.notificationCursor('daily-summary') === undefined) cursors['daily-summary'] = utcDay(now)
  if (Object.keys(cursors).length > 0) journal.enqueueNotifications({ notifications: [], cursors })
}

/** Fills journaled after the cursor, one notification each (`fill:<fillId>`), the cursor moved with them. */
export async function collectFills({ journal, targets, formatAmount }: CollectParameters): Promise<number> {
  // Nobody wants fills: no message is built (nor a token's symbol read), the cursor moves on.
  if (!targets.some((target) => target.events.has('fill'))) {
    const last = String(journal.lastFillId())
    // No new fill: no write to the journal for a cursor that stays where it is.
    return journal.notificationCursor('fills') === last ? 0 : enqueueEvents(journal, targets, [], { fills: last })
  }
  let queued = 0
  for (;;) {
    const fills = journal.fillsAfter(Number(journal.notificationCursor('fills') ?? 0), 200)
    const last = fills.at(-1)
    if (!last) return queued
    const events = await Promise.all(
      fills.map(async (fill) => ({ key: `fill:${fill.fillId}`, message: await fillMessage(fill, formatAmount) })),
    )
    queued += enqueueEvents(journal, targets, events, { fills: String(last.fillId) })
  }
}

/** Intents refused or failed after the cursor (`intent-refused:<id>`, `intent-failed:<id>`). */
export function collectIntents({ journal, targets }: Omit<CollectParameters, 'formatAmount'>): number {
  let queued = 0
  for (;;) {
    const stored = journal.notificationCursor('intents')
    const cursor = stored === undefined ? { updatedAt: 0, id: '' } : intentCursorSchema.parse(JSON.parse(stored))
    const intents = journal.refusedOrFailedIntentsAfter(cursor, 200)
    const last = intents.at(-1)
    if (!last) return queued
    const events = intents.map((intent) => ({ key: `intent-${intent.status}:${intent.id}`, message: intentMessage(intent) }))
    queued += enqueueEvents(journal, targets, events, { intents: JSON.stringify({ updatedAt: last.updatedAt, id: last.id }) })
  }
}

export type BotStateNow = {
  now: number
  /** Per strategy: paused, and its last error's message. */
  strategies: Readonly<Record<string, { paused: boolean; lastError: string | undefined }>>
  /** The kill switch's reason while tripped. */
  killSwitch: string | undefined
}

/**
 * Strategies newly paused and kill-switch trips and releases since the state the journal last saw (kept in a cursor,
 * so a restart does not tell a switch still tripped again). Keys carry the clock time of the change.
 */
export function collectBotState({ journal, targets }: Omit<CollectParameters, 'formatAmount'>, state: BotStateNow): number {
  const stored = journal.notificationCursor('bot-state')
  const before = stored === undefined ? { paused: [], killSwitch: null } : botStateSchema.parse(JSON.parse(stored))
  const paused = Object.entries(state.strategies)
    .filter(([, stats]) => stats.paused)
    .map(([name]) => name)
    .sort()
  const events = paused
    .filter((name) => !before.paused.includes(name))
    .map((name) => ({
      key: `strategy-paused:${name}:${state.now}`,
      message: strategyPausedMessage(name, state.strategies[name]?.lastError),
    }))
  const killSwitch = state.killSwitch ?? null
  if ((killSwitch === null) !== (before.killSwitch === null)) {
    events.push({
      key: `kill-switch:${killSwitch === null ? 'released' : 'tripped'}:${state.now}`,
      message: killSwitchMessage(state.killSwitch),
    })
  }
  const after = JSON.stringify({ paused, killSwitch })
  if (after === JSON.stringify(before)) return 0
  return enqueueEvents(journal, targets, events, { 'bot-state': after })
}

/** Fill figures the venue gave and the chain contradicted, once per order, transaction and leg. */
export function collectMismatches(
  { journal, targets }: Omit<CollectParameters, 'formatAmount'>,
  mismatches: readonly FillMismatch[],
): number {
  const events = mismatches.map((mismatch) => ({
    key: `reconcile-mismatch:${mismatch.orderId}:${mismatch.txHash}:${mismatch.leg}`,
    message: mismatchMessage(mismatch),
  }))
  return events.length === 0 ? 0 : enqueueEvents(journal, targets, events)
}

/** Once the bot's clock is past the UTC day in the cursor, the summary of the day before today (`daily-summary:<day>`). */
export async function collectDailySummary({ journal, targets, formatAmount }: CollectParameters, now: number): Promise<number> {
  const today = utcDay(now)
  const done = journal.notificationCursor('daily-summary')
  if (done !== undefined && done >= today) return 0
  if (!targets.some((target) => target.events.has('daily-summary'))) return enqueueEvents(journal, targets, [], { 'daily-summary': today })
  const day = previousUtcDay(today)
  const { from, to } = utcDayRange(day)
  const message = await dailySummaryMessage({
    day,
    fills: journal.fillsBetween(from, to),
    intentCounts: journal.intentCountsBetween(from, to),
    formatAmount,
  })
  return enqueueEvents(journal, targets, [{ key: `daily-summary:${day}`, message }], { 'daily-summary': today })
}
