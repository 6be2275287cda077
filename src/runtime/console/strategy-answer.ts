import { z } from 'zod'

/** A token a strategy moved, raw units: net = received + refunded − spent (its PnL in kind, no price assumed). */
export const tokenFlowSchema = z.object({
  chainId: z.number().int(),
  token: z.string(),
  spent: z.string(),
  received: z.string(),
  refunded: z.string(),
  net: z.string().regex(/^-?\d+$/),
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
})

/** GET /api/strategies. */
export const strategiesAnswerSchema = z.object({ strategies: z.array(strategyViewSchema) })

export type StrategyView = z.infer<typeof strategyViewSchema>
