import { z } from 'zod'

export const killSwitchStateSchema = z.object({
  tripped: z.boolean(),
  reason: z.string().nullable(),
  /** signal (or trip()), operator (the console), file; null while not tripped. */
  source: z.enum(['signal', 'operator', 'file']).nullable(),
  cancelOpenOrders: z.boolean(),
})

/** GET /api/status: what the bot is and how it runs. Times are ms of the bot's clock (the venue's) unless named real. */
export const statusAnswerSchema = z.object({
  mode: z.enum(['paper', 'dry-run', 'live']),
  /** "sandbox" for the embedded one, else the venue's scheme and host. */
  venue: z.string(),
  account: z.string(),
  chains: z.array(z.object({ chainId: z.number().int(), available: z.boolean() })),
  running: z.boolean(),
  /** Real ms since the console started with the bot. */
  uptimeMs: z.number(),
  now: z.number(),
  killSwitch: killSwitchStateSchema,
  reconciliation: z.object({
    lastAt: z.number().nullable(),
    passes: z.number().int(),
    errors: z.number().int(),
    skips: z.number().int(),
  }),
  /** What the journal holds: orders by `mode:status`, fills and refunds (as `deltaflow status` counts them). */
  journal: z.object({
    orders: z.object({ byStatus: z.record(z.string(), z.number().int()), open: z.number().int(), total: z.number().int() }),
    fills: z.number().int(),
    refunds: z.number().int(),
  }),
  stats: z.object({
    quotes: z.number().int(),
    quoteErrors: z.number().int(),
    lastQuoteAt: z.number().nullable(),
    intentsQueued: z.number().int(),
    executions: z.object({ accepted: z.number(), refused: z.number(), failed: z.number(), done: z.number() }),
    executionErrors: z.number().int(),
    dryRunIntents: z.number().int(),
    delivered: z.object({ orderUpdates: z.number(), fills: z.number(), refunds: z.number(), timers: z.number(), balances: z.number() }),
    balanceErrors: z.number().int(),
  }),
})

export type StatusAnswer = z.infer<typeof statusAnswerSchema>
