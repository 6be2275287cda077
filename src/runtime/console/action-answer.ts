import { z } from 'zod'
import type { OperatorAction } from '../../journal/operator-actions.js'

/** The body every action accepts: an action id, when the client sends no Idempotency-Key header. */
export const actionBodySchema = z.object({
  actionId: z
    .string()
    .regex(/^[\w.:-]{8,128}$/, 'expected 8 to 128 letters, digits, "_", ".", ":" or "-"')
    .optional(),
})

export const killSwitchBodySchema = actionBodySchema.extend({
  reason: z.string().min(1).max(500).default('engaged by the operator'),
  /** Cancel every open Delta and OTC order too (at once, and at each pass while some remain). */
  cancelOpenOrders: z.boolean().default(false),
})

export const actionNames = [
  'pause-strategy',
  'resume-strategy',
  'cancel-order',
  'cancel-strategy-orders',
  'engage-kill-switch',
  'release-kill-switch',
  'reconcile',
] as const

export type ActionName = (typeof actionNames)[number]

/** What every action answers: the journaled action, first outcome included (a repeated key answers it again). */
export const actionAnswerSchema = z.object({
  id: z.number().int(),
  key: z.string(),
  action: z.enum(actionNames),
  target: z.string().nullable(),
  /** The token's name (the setting that holds it), never the token. */
  requestedBy: z.string(),
  status: z.enum(['running', 'done', 'failed']),
  /** done: what it did (e.g. `{ changed: false }` for a pause of a paused strategy); failed: `{ error }`. */
  outcome: z.record(z.string(), z.unknown()).nullable(),
  requestedAt: z.number(),
  completedAt: z.number().nullable(),
  /** true when this key was used before: nothing was done again. */
  replayed: z.boolean(),
})

export type ActionAnswer = z.infer<typeof actionAnswerSchema>

export function actionAnswerOf(action: OperatorAction, replayed: boolean): ActionAnswer {
  return actionAnswerSchema.parse({
    id: action.id,
    key: action.key,
    action: action.action,
    target: action.target,
    requestedBy: action.requestedBy,
    status: action.status,
    outcome: action.outcome,
    requestedAt: action.requestedAt,
    completedAt: action.completedAt,
    replayed,
  })
}
