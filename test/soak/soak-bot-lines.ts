import { z } from 'zod'

/** What the soak passes to its bot process (one JSON argument). */
export const soakBotArgumentsSchema = z.object({
  configFile: z.string().min(1),
  logFile: z.string().min(1),
  logLevel: z.enum(['debug', 'info', 'warn', 'error']).default('warn'),
  /** Real ms between two samples. */
  sampleMs: z.number().int().positive(),
})

export type SoakBotArguments = z.input<typeof soakBotArgumentsSchema>

const sampleSchema = z.object({
  event: z.literal('sample'),
  /** Real ms since the bot process started. */
  realMs: z.number(),
  /** The bot's clock (the venue's). */
  clockMs: z.number(),
  rss: z.number(),
  heapUsed: z.number(),
  heapTotal: z.number(),
  external: z.number(),
  intentsQueued: z.number(),
  /** Intent results handed to the strategies so far. */
  results: z.number(),
  executionErrors: z.number(),
})

const executionsSchema = z.object({ accepted: z.number(), refused: z.number(), failed: z.number(), done: z.number() })

/** One line the bot process prints on stdout. */
export const soakBotLineSchema = z.discriminatedUnion('event', [
  z.object({ event: z.literal('started'), realMs: z.number(), account: z.string(), journal: z.string() }),
  sampleSchema,
  z.object({
    event: z.literal('stopped'),
    realMs: z.number(),
    stats: z.object({
      intentsQueued: z.number(),
      /** Intent results handed to the strategies. */
      resultsTold: z.number(),
      /** The dispatch's count of outcomes, by status (an execution that threw is not among them). */
      executions: executionsSchema,
      executionErrors: z.number(),
      quotes: z.number(),
      quoteErrors: z.number(),
      reconcilePasses: z.number(),
      reconcileErrors: z.number(),
      balanceErrors: z.number(),
      strategies: z.record(
        z.string(),
        z.object({ intentsProduced: z.number(), resultsTold: z.number(), failures: z.number(), paused: z.boolean() }),
      ),
    }),
    pendingAtStop: z.number(),
  }),
])

export type SoakBotLine = z.infer<typeof soakBotLineSchema>
export type SoakSample = z.infer<typeof sampleSchema>
export type SoakStopped = Extract<SoakBotLine, { event: 'stopped' }>
