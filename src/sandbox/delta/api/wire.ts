import { type Address, getAddress, type Hex } from 'viem'
import { z } from 'zod'

// zod pieces shared by the Delta endpoints' request schemas.

export const addressSchema = z
  .string()
  .regex(/^0x[0-9a-fA-F]{40}$/, 'expected an address (0x + 40 hex)')
  .transform((value) => value as Address)

/** An address normalised to its checksum form. */
export const checksumAddressSchema = addressSchema.transform((value) => getAddress(value))

export const hexSchema = z
  .string()
  .regex(/^0x([0-9a-fA-F]{2})*$/, 'expected 0x-prefixed hex bytes')
  .transform((value) => value as Hex)

/** Raw token units on the wire: a decimal integer string. */
export const amountStringSchema = z
  .string()
  .regex(/^\d{1,78}$/, 'expected a decimal integer string of raw units')
  .transform((value) => BigInt(value))

/** A uint in a signed struct: a decimal string, or a safe integer where the struct writes a number. */
export const uintSchema = z.union([
  amountStringSchema,
  z
    .number()
    .int()
    .nonnegative()
    .refine((value) => Number.isSafeInteger(value), 'expected a safe integer')
    .transform((value) => BigInt(value)),
])

/** A query-string integer ("42"); numbers are accepted for callers of priceDelta that pass parsed values. */
export const queryIntegerSchema = z.union([
  z.number().int(),
  z
    .string()
    .regex(/^-?\d+$/, 'expected an integer')
    .transform((value) => Number(value)),
])

export const queryNumberSchema = z.union([
  z.number(),
  z
    .string()
    .regex(/^-?\d+(\.\d+)?$/, 'expected a number')
    .transform((value) => Number(value)),
])

export const queryBooleanSchema = z.union([z.boolean(), z.enum(['true', 'false']).transform((value) => value === 'true')])

/** "a,b,c" → ["a", "b", "c"] (empty items dropped). */
export const commaListSchema = z.string().transform((value) =>
  value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item.length > 0),
)

export const sideSchema = z.enum(['SELL', 'BUY'])

export const uuidSchema = z.string().regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, 'expected a uuid')

/** Unix milliseconds of the sandbox clock → the API's date-time string. */
export function formatDateTime(ms: number): string {
  return new Date(ms).toISOString()
}
