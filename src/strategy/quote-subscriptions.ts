import { z } from 'zod'
import { intentAddressSchema, intentAmountSchema, intentChainIdSchema, intentSideSchema } from '../domain/intents/intent-fields.js'
import { issueMessage } from '../domain/wire-fields.js'
import type { QuoteRequest } from '../feed/quote.js'
import { StrategyError, type StrategyHandlerName } from './strategy-errors.js'
import type { BalanceRequest } from './strategy-events.js'

const quoteRequestSchema = z.strictObject({
  source: z.enum(['delta', 'market', 'unified'], { error: 'expected delta, market or unified' }),
  chainId: intentChainIdSchema,
  destChainId: intentChainIdSchema.optional(),
  srcToken: intentAddressSchema,
  destToken: intentAddressSchema,
  amount: intentAmountSchema,
  side: intentSideSchema,
})

const intervalSchema = z.custom<number>(
  (value) => typeof value === 'number' && Number.isSafeInteger(value) && value >= 1_000,
  'expected an interval in ms (an integer of at least 1000)',
)

function parseList<T>(strategy: string, handler: StrategyHandlerName, value: unknown, schema: z.ZodType<T>): T[] {
  const result = z.array(schema, { error: 'expected an array' }).safeParse(value)
  if (result.success) return result.data
  const problems = result.error.issues.map((issue) => `${issue.path.map(String).join('.') || '(result)'}: ${issueMessage(issue)}`)
  throw new StrategyError({ strategy, handler, reason: problems.join('; ') })
}

/** Validates what `subscriptions(config)` returned (addresses checksummed, amounts bigint). */
export function parseSubscriptions(strategy: string, value: unknown): QuoteRequest[] {
  return parseList(strategy, 'subscriptions', value, quoteRequestSchema)
}

/** Validates what `timers(config)` returned. */
export function parseTimers(strategy: string, value: unknown): number[] {
  return parseList(strategy, 'timers', value, intervalSchema)
}

const balanceRequestSchema = z.strictObject({ chainId: intentChainIdSchema, token: intentAddressSchema })

/** Validates what `balances(config)` returned (addresses checksummed). */
export function parseBalanceRequests(strategy: string, value: unknown): BalanceRequest[] {
  return parseList(strategy, 'balances', value, balanceRequestSchema)
}
