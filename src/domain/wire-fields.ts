import type { Address, Hex } from 'viem'
import { z } from 'zod'

// Leaf schemas of the service's answers: amounts become bigint, addresses and hex are checked, and every failure
// says what was expected and what was received, so a bad field reads `priceRoute.destAmount: expected a decimal
// integer string, received 12.5`.

/** How a received value is shown in an error: short, quoted when a string, "nothing" when the field is missing. */
export function describeReceived(input: unknown): string {
  if (input === undefined) return 'nothing (the field is missing)'
  if (typeof input === 'bigint') return `${input}n`
  if (typeof input === 'string') return JSON.stringify(input.length > 80 ? `${input.slice(0, 77)}...` : input)
  if (Array.isArray(input)) return `an array of ${input.length}`
  if (typeof input === 'object' && input !== null) return 'an object'
  return String(input)
}

/** An issue's message, with the received value appended when zod's own message does not say it. */
export function issueMessage(issue: { code: string; message: string; input?: unknown }): string {
  if (issue.code === 'custom' || issue.message.includes('received') || !('input' in issue)) return issue.message
  return `${issue.message}, received ${describeReceived(issue.input)}`
}

const expecting = (what: string) => ({
  error: (issue: { input?: unknown }) => `expected ${what}, received ${describeReceived(issue.input)}`,
})

const decimalInteger = 'a decimal integer string'

/** Raw token units (or wei) on the wire: a decimal integer string below 2^256, as a bigint. */
export const wireAmountSchema = z
  .string(expecting(decimalInteger))
  .regex(/^\d{1,78}$/, expecting(decimalInteger))
  .transform((value) => BigInt(value))
  .refine((value) => value < 1n << 256n, expecting(`${decimalInteger} below 2^256`))

/** Like wireAmountSchema, where the service may write `null` (not yet known). */
export const wireNullableAmountSchema = wireAmountSchema.nullable()

const addressPattern = /^0x[0-9a-fA-F]{40}$/
const hexPattern = /^0x([0-9a-fA-F]{2})*$/
const hashPattern = /^0x[0-9a-fA-F]{64}$/

/** 0x + 40 hex digits, any case (the service writes lowercase; the native placeholder is mixed case). */
export const wireAddressSchema = z.custom<Address>(
  (value) => typeof value === 'string' && addressPattern.test(value),
  expecting('an address (0x + 40 hex digits)'),
)

/** 0x-prefixed bytes. */
export const hexSchema = z.custom<Hex>((value) => typeof value === 'string' && hexPattern.test(value), expecting('0x-prefixed hex bytes'))

/** A 32-byte hash (EIP-712 order hash, transaction hash). */
export const hashSchema = z.custom<Hex>(
  (value) => typeof value === 'string' && hashPattern.test(value),
  expecting('a 32-byte hash (0x + 64 hex digits)'),
)

export const uuidSchema = z
  .string(expecting('a uuid'))
  .regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, expecting('a uuid'))

export const wireChainIdSchema = z
  .number(expecting('a chain id (positive integer)'))
  .int(expecting('a chain id (positive integer)'))
  .positive()

/** A non-negative safe integer written as a JSON number (decimals, block numbers, unix seconds). */
export const integerSchema = z
  .number(expecting('a non-negative integer'))
  .refine((value) => Number.isSafeInteger(value) && value >= 0, expecting('a non-negative integer'))

/** An ISO 8601 date-time with a zone, as unix milliseconds. */
export const dateTimeSchema = z
  .string(expecting('an ISO 8601 date-time'))
  .refine((value) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(value), expecting('an ISO 8601 date-time'))
  .transform((value) => Date.parse(value))

export const wireSideSchema = z.enum(['SELL', 'BUY'], expecting('SELL or BUY'))
export type Side = z.infer<typeof wireSideSchema>

/** Token address → raw amount (section 2.7); keys are lowercased so a lookup by `address.toLowerCase()` always works. */
export const balanceMapSchema = z
  .record(z.string().regex(addressPattern, expecting('a token address as key')), wireAmountSchema)
  .transform((balances) => Object.fromEntries(Object.entries(balances).map(([token, amount]) => [token.toLowerCase(), amount])))

export type BalanceMap = z.infer<typeof balanceMapSchema>
