import { z } from 'zod'
import type { ConsoleEventRow } from '../../journal/console-events.js'
import type { OperatorAction } from '../../journal/operator-actions.js'
import { actionAnswerOf, actionAnswerSchema } from './action-answer.js'

const base = { id: z.number().int(), at: z.number() }
/** What every event about an order carries. */
const ofOrder = { ...base, orderId: z.string(), strategy: z.string().nullable() }

/**
 * One event of GET /api/events (its SSE `data:`; its `id:` is `id`, its `event:` is `kind`). `id` is the position in
 * the journal's console_events sequence: a client that reconnects with `Last-Event-ID` gets every later one.
 */
export const consoleEventSchema = z.discriminatedUnion('kind', [
  z.object({
    ...ofOrder,
    kind: z.literal('order-status'),
    seq: z.number().int(),
    status: z.string(),
    reason: z.string().nullable(),
  }),
  z.object({
    ...ofOrder,
    kind: z.literal('fill'),
    fillId: z.number().int(),
    chainId: z.number().int(),
    txHash: z.string(),
    spent: z.string(),
    received: z.string(),
    source: z.string(),
  }),
  z.object({
    ...ofOrder,
    kind: z.literal('refund'),
    chainId: z.number().int(),
    txHash: z.string(),
    token: z.string(),
    amount: z.string(),
  }),
  z.object({
    ...base,
    kind: z.literal('intent'),
    intentId: z.string(),
    strategy: z.string().nullable(),
    intentKind: z.string().nullable(),
    status: z.string(),
    reason: z.string().nullable(),
  }),
  z.object({
    ...base,
    kind: z.literal('strategy'),
    strategy: z.string(),
    /** paused (with pausedBy), resumed, or error (with the failures and the error's message). */
    event: z.record(z.string(), z.unknown()),
  }),
  z.object({ ...base, kind: z.literal('action'), action: actionAnswerSchema.omit({ replayed: true }) }),
])

export type ConsoleEvent = z.infer<typeof consoleEventSchema>

/** The view of a journal row of the sequence; `actionOf` reads an operator action by id. */
export function consoleEventOf(row: ConsoleEventRow, actionOf: (id: number) => OperatorAction | undefined): ConsoleEvent {
  const { id, at } = row
  // Every event about an order, and of a fill or refund the chain and transaction it happened in.
  const order = { id, at, orderId: row.orderId ?? '', strategy: row.orderStrategy }
  const onChain = { chainId: row.chainId ?? 0, txHash: row.txHash ?? '' }
  switch (row.kind) {
    case 'order-status':
      return { ...order, kind: row.kind, seq: row.statusSeq ?? 0, status: row.status ?? '', reason: row.statusReason }
    case 'fill':
      return {
        ...order,
        ...onChain,
        kind: row.kind,
        fillId: row.fillId ?? 0,
        spent: row.spentAmount ?? '0',
        received: row.receivedAmount ?? '0',
        source: row.fillSource ?? '',
      }
    case 'refund':
      return { ...order, ...onChain, kind: row.kind, token: row.refundToken ?? '', amount: row.refundAmount ?? '0' }
    case 'intent': {
      const status = row.detail ?? ''
      const reason = status === 'refused' || status === 'failed' ? row.intentReason : null
      return {
        id,
        at,
        kind: row.kind,
        intentId: row.subject ?? '',
        strategy: row.intentStrategy,
        intentKind: row.intentKind,
        status,
        reason,
      }
    }
    case 'strategy':
      return { id, at, kind: row.kind, strategy: row.subject ?? '', event: JSON.parse(row.detail ?? '{}') as Record<string, unknown> }
    case 'action': {
      const action = row.actionId === null ? undefined : actionOf(row.actionId)
      if (!action) throw new Error(`console event ${id} names operator action ${row.actionId}, which the journal lacks`)
      const { replayed: _replayed, ...view } = actionAnswerOf(action, false)
      return { id, at, kind: row.kind, action: view }
    }
  }
}
