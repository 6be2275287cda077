import { z } from 'zod'
import { tokenLabelSchema, unitsSchema } from './token-answer.js'

/** A token a strategy moved, raw units: net = received + refunded − spent (its PnL in kind, no price assumed). */
export const tokenFlowSchema = z.object({
  chainId: z.number().int(),
  token: z.string(),
  spent: z.string(),
  received: z.string(),
  refunded: z.string(),
  net: z.string().regex(/^-?\d+$/),
  label: tokenLabelSchema,
  /** net in token units (`-1000`), null when the token's decimals are unknown. */
  netUnits: unitsSchema,
})

/** A value in the valuation token (ops.valuation): in its units and raw, the token, and the time of its oldest price. */
export const valueSchema = z.object({
  value: unitsSchema,
  raw: z.string().regex(/^-?\d+$/),
  token: tokenLabelSchema,
  /** Clock ms of the oldest quote the value took (null: every amount was already in the valuation token). */
  pricedAt: z.number().nullable(),
})

export const strategyViewSchema = z.object({
  name: z.string(),
  /** Its config as validated (amounts as decimal strings). */
  config: z.unknown(),
  state: z.enum(['running', 'paused']),
  /** operator: paused through the console; failures: after too many failures in a row. */
  pausedBy: z.enum(['operator', 'failures']).nullable(),
  errors: z.object({ failures: z.number().int(), consecutiveFailures: z.number().int(), lastError: z.string().nullable() }),
  events: z.object({ handled: z.number().int(), skipped: z.number().int() }),
  intentsProduced: z.number().int(),
  intents: z.record(z.string(), z.number().int()),
  /** Orders by `mode:status`. */
  orders: z.record(z.string(), z.number().int()),
  openOrders: z.number().int(),
  flows: z.array(tokenFlowSchema),
  /** The net flows valued in the valuation token at the latest prices the bot has seen; null when it cannot be (see pnlUnpriced). */
  pnl: valueSchema.nullable(),
  /** Why pnl is null: no valuation token, or no price seen yet between one of its tokens and the valuation token. */
  pnlUnpriced: z.string().nullable(),
})

/** GET /api/strategies. */
export const strategiesAnswerSchema = z.object({ strategies: z.array(strategyViewSchema) })

export type StrategyView = z.infer<typeof strategyViewSchema>
