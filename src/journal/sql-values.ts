import { z } from 'zod'

/** A raw-unit amount stored as a decimal TEXT column; bigint in the API, never a JS number. */
export const amountColumn = z
  .string()
  .regex(/^\d+$/, 'expected a non-negative decimal integer string')
  .transform((text) => BigInt(text))

export const nullableAmountColumn = amountColumn.nullable()

const decimalDigits = /^\d+$/

/**
 * An amount column's value, checked as amountColumn checks it, without a schema parse per row: for queries that read
 * many amounts. A value amountColumn refuses throws its error.
 */
export function readAmountText(text: unknown): bigint {
  return typeof text === 'string' && decimalDigits.test(text) ? BigInt(text) : amountColumn.parse(text)
}

/** SQLite has no boolean: 0 or 1. */
export const flagColumn = z.union([z.literal(0), z.literal(1)]).transform((flag) => flag === 1)

/** A JSON document stored as TEXT; callers parse its content with their own schema. */
export const jsonColumn = z.string().transform((text, context): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    context.addIssue({ code: 'custom', message: 'stored JSON does not parse' })
    return z.NEVER
  }
})

/** Writes an amount column; refuses negatives so a bug never stores a value the reader would reject. */
export function toAmountText(amount: bigint): string {
  if (amount < 0n) throw new RangeError(`amounts are non-negative raw units, received ${amount}`)
  return amount.toString()
}

export function toNullableAmountText(amount: bigint | undefined): string | null {
  return amount === undefined ? null : toAmountText(amount)
}

/** JSON with bigint values written as decimal strings (the wire convention). */
export function toJsonText(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) => (typeof inner === 'bigint' ? inner.toString() : inner))
}

export function toAddress(address: string): string {
  return address.toLowerCase()
}
