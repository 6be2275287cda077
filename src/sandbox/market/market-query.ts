import type { Address } from 'viem'
import { z } from 'zod'

// Wire forms of the Market API's parameters. Query strings arrive as strings; callers inside the sandbox (the
// unified quote) may pass numbers and booleans, so both are accepted.

const received = (input: unknown) => `received ${typeof input === 'bigint' ? `"${input}"` : (JSON.stringify(input) ?? String(input))}`

/** `true` / `false` (query strings) or a boolean. */
export const booleanParam = z.union([z.boolean(), z.enum(['true', 'false']).transform((value) => value === 'true')], {
  error: (issue) => `expected true or false, ${received(issue.input)}`,
})

/** A non-negative integer given as a number or a decimal string. */
export function integerParam({ min = 0, max = Number.MAX_SAFE_INTEGER }: { min?: number; max?: number } = {}) {
  const expected = `expected an integer from ${min} to ${max}`
  return z
    .union(
      [
        z.number(),
        z
          .string()
          .regex(/^-?\d+$/)
          .transform(Number),
      ],
      { error: (issue) => `${expected}, ${received(issue.input)}` },
    )
    .refine((value) => Number.isSafeInteger(value) && value >= min && value <= max, {
      error: (issue) => `${expected}, ${received(issue.input)}`,
    })
}

/** A finite number given as a number or a decimal string (e.g. `maxImpact=12.5`). */
export function numberParam({ min = 0 }: { min?: number } = {}) {
  const expected = `expected a number of at least ${min}`
  return z
    .union(
      [
        z.number(),
        z
          .string()
          .regex(/^-?\d+(\.\d+)?$/)
          .transform(Number),
      ],
      { error: (issue) => `${expected}, ${received(issue.input)}` },
    )
    .refine((value) => Number.isFinite(value) && value >= min, { error: (issue) => `${expected}, ${received(issue.input)}` })
}

/** A raw token amount: a decimal integer string without sign or decimal point, below 2^256. */
export function amountParam({ positive = true }: { positive?: boolean } = {}) {
  const expected = `expected a decimal integer string of raw units${positive ? ' above 0' : ''}`
  return z
    .string({ error: (issue) => `${expected}, ${received(issue.input)}` })
    .regex(/^\d{1,78}$/, { error: (issue) => `${expected}, ${received(issue.input)}` })
    .transform((value) => BigInt(value))
    .refine((value) => value < 1n << 256n && (!positive || value > 0n), { error: (issue) => `${expected}, ${received(issue.input)}` })
}

/** 0x + 40 hex, any case. */
export const addressParam = z
  .string({ error: (issue) => `expected an address (0x + 40 hex), ${received(issue.input)}` })
  .regex(/^0x[0-9a-fA-F]{40}$/, { error: (issue) => `expected an address (0x + 40 hex), ${received(issue.input)}` })
  .transform((value) => value as Address)

/** A token: an address or a symbol listed by GET /tokens. */
export const tokenParam = z
  .string({ error: (issue) => `expected a token address or symbol, ${received(issue.input)}` })
  .min(1, { error: 'expected a token address or symbol, received ""' })
  .max(100)

/** Comma-separated names (`includeDEXS=SandboxPool30,SandboxPool5`); empty entries are dropped. */
export const listParam = z.string({ error: (issue) => `expected a comma-separated list, ${received(issue.input)}` }).transform((value) =>
  value
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry.length > 0),
)

/** A tax or fee in basis points, sent as a string (`srcTokenTransferFee=500`). */
export const basisPointsParam = z
  .union([z.number(), z.string().regex(/^\d+$/).transform(Number)], {
    error: (issue) => `expected basis points (an integer from 0 to 10000), ${received(issue.input)}`,
  })
  .refine((value) => Number.isInteger(value) && value >= 0 && value <= 10_000, {
    error: (issue) => `expected basis points (an integer from 0 to 10000), ${received(issue.input)}`,
  })
