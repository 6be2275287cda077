import { type Address, getAddress } from 'viem'
import { z } from 'zod'
import { describeReceived } from '../wire-fields.js'

// Leaf schemas of strategy intents. Every failure says what was expected and what was received, so a refusal reads
// `amount: expected a positive raw amount (decimal integer string or bigint), received "1.5"`.

const expecting = (what: string) => ({
  error: (issue: { input?: unknown }) => `expected ${what}, received ${describeReceived(issue.input)}`,
})

const rawAmount = 'a positive raw amount (decimal integer string or bigint)'

function isRawAmount(value: unknown): value is string | bigint {
  if (typeof value === 'bigint') return value > 0n && value < 1n << 256n
  if (typeof value !== 'string' || !/^\d{1,78}$/.test(value)) return false
  const amount = BigInt(value)
  return amount > 0n && amount < 1n << 256n
}

/** Raw token units, strictly positive and below 2^256: a decimal integer string or a bigint in, a bigint out. */
export const intentAmountSchema = z.custom<string | bigint>(isRawAmount, expecting(rawAmount)).transform((value) => BigInt(value))

/** 0x + 40 hex digits in any case, normalised to the checksummed form (so the intent id does not depend on case). */
export const intentAddressSchema = z
  .custom<Address>((value) => typeof value === 'string' && /^0x[0-9a-fA-F]{40}$/.test(value), expecting('an address (0x + 40 hex digits)'))
  .transform((value) => getAddress(value))

export const intentChainIdSchema = z.custom<number>(
  (value) => typeof value === 'number' && Number.isSafeInteger(value) && value > 0,
  expecting('a chain id (positive integer)'),
)

export const intentSideSchema = z.enum(['SELL', 'BUY'], expecting('SELL or BUY'))

/** Basis points, 0 to 10000 (100 = 1 %), as the service counts slippage. */
export const slippageBpsSchema = z.custom<number>(
  (value) => typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= 10_000,
  expecting('an integer number of basis points from 0 to 10000 (100 = 1 %)'),
)

/** Percent, above 0 and at most 100 (the service's maxImpact, default 15). */
export const priceImpactPercentSchema = z.custom<number>(
  (value) => typeof value === 'number' && Number.isFinite(value) && value > 0 && value <= 100,
  expecting('a percentage above 0 and at most 100 (15 = 15 %)'),
)

/** Unix milliseconds, as a Clock reads them. */
export const unixMillisecondsSchema = z.custom<number>(
  (value) => typeof value === 'number' && Number.isSafeInteger(value) && value >= 0,
  expecting('unix milliseconds (a non-negative integer)'),
)

/** Unix seconds, as the chains and the API count deadlines and expiries. */
export const unixSecondsSchema = z.custom<number>(
  (value) => typeof value === 'number' && Number.isSafeInteger(value) && value > 0 && value < 1e11,
  expecting('unix seconds (a positive integer, not milliseconds)'),
)

export const integerAtLeast = (minimum: number, unit: string) =>
  z.custom<number>(
    (value) => typeof value === 'number' && Number.isSafeInteger(value) && value >= minimum,
    expecting(`an integer number of ${unit}, at least ${minimum}`),
  )

export const nonEmptyNameSchema = (what: string) =>
  z.custom<string>((value) => typeof value === 'string' && value.length > 0 && value.length <= 200, expecting(what))
