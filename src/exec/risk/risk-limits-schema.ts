import { z } from 'zod'
import { describeReceived } from '../../domain/wire-fields.js'

// The risk section of a bot's configuration. Amounts are raw units of the token (no decimals applied), written as
// decimal strings in YAML (a YAML number loses precision beyond 2^53).

const expecting = (what: string) => ({
  error: (issue: { input?: unknown }) => `expected ${what}, received ${describeReceived(issue.input)}`,
})

const configAmountSchema = z
  .custom<string | bigint | number>(
    (value) =>
      (typeof value === 'string' && /^\d{1,78}$/.test(value)) ||
      (typeof value === 'bigint' && value >= 0n) ||
      (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0),
    expecting('a raw amount (decimal integer string such as "1000000", in the token\'s smallest units)'),
  )
  .transform((value) => BigInt(value))

const tokenKeyPattern = /^(\d+):(0x[0-9a-fA-F]{40})$/

/** `chainId:address` with the address lowercased: the key of per-token limits and usage. */
export function tokenKey(chainId: number, address: string): string {
  return `${chainId}:${address.toLowerCase()}`
}

export const tokenLimitsSchema = z.strictObject({
  /** Most raw units committed per UTC day (by the clock) in intents spending this token. */
  dailyBudget: configAmountSchema.optional(),
  /** Most raw units committed over the bot's whole history. */
  totalBudget: configAmountSchema.optional(),
  /** Least raw units per trade (per slice for a TWAP); smaller trades cost more in gas and fees than they move. */
  minTradeSize: configAmountSchema.optional(),
})

export type TokenLimits = z.output<typeof tokenLimitsSchema>

export const riskLimitsSchema = z.strictObject({
  /** Per token, keyed `chainId:address` (e.g. `1:0xa0b8…eb48`); any address case. Tokens not listed have no budget. */
  tokens: z
    .record(
      z.string().regex(tokenKeyPattern, 'expected a key chainId:address such as 1:0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48'),
      tokenLimitsSchema,
    )
    .default({})
    .transform((tokens) => Object.fromEntries(Object.entries(tokens).map(([key, limits]) => [key.toLowerCase(), limits]))),
  /** Basis points (100 = 1 %): an intent allowing more slippage is refused. */
  maxSlippageBps: z.number().int().min(0).max(10_000).optional(),
  /** Percent: an intent (or its quote) allowing more price impact is refused. */
  maxPriceImpactPercent: z.number().positive().max(100).optional(),
  /** Orders a strategy may have open at once (Delta orders, TWAPs, limit and OTC orders). */
  maxOpenOrdersPerStrategy: z.number().int().min(0).optional(),
})

export type RiskLimits = z.output<typeof riskLimitsSchema>
export type RiskLimitsInput = z.input<typeof riskLimitsSchema>
