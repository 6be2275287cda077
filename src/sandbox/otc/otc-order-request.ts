import type { Address, Hex } from 'viem'
import { z } from 'zod'

const received = (input: unknown) => `received ${JSON.stringify(input) ?? String(input)}`

const addressSchema = z
  .string({ error: (issue) => `expected an address (0x + 40 hex), ${received(issue.input)}` })
  .regex(/^0x[0-9a-fA-F]{40}$/, { error: (issue) => `expected an address (0x + 40 hex), ${received(issue.input)}` })
  .transform((value) => value as Address)

const hexBytesSchema = z
  .string({ error: (issue) => `expected 0x-prefixed hex bytes, ${received(issue.input)}` })
  .regex(/^0x([0-9a-fA-F]{2})*$/, { error: (issue) => `expected 0x-prefixed hex bytes, ${received(issue.input)}` })
  .transform((value) => value.toLowerCase() as Hex)

function uintStringSchema(bits: bigint, { positive = false } = {}) {
  const expected = `expected a decimal integer string${positive ? ' above 0' : ''}`
  return z
    .string({ error: (issue) => `${expected}, ${received(issue.input)}` })
    .regex(/^\d+$/, { error: (issue) => `${expected}, ${received(issue.input)}` })
    .transform((value) => BigInt(value))
    .refine((value) => value < 1n << bits, { error: `must fit in uint${bits}` })
    .refine((value) => !positive || value > 0n, { error: `${expected}, received "0"` })
}

/** Body of POST /ft/p2p/{chainId}/ (section 4.3): the signed fields, the signature and an optional permit. */
export const otcOrderBodySchema = z.object({
  nonceAndMeta: uintStringSchema(256n),
  expiry: z
    .number({ error: (issue) => `expected an integer (unix seconds, 0 = never), ${received(issue.input)}` })
    .int({ error: (issue) => `expected an integer (unix seconds, 0 = never), ${received(issue.input)}` })
    .min(0, { error: 'must not be negative' })
    .max(Number.MAX_SAFE_INTEGER),
  makerAsset: addressSchema,
  takerAsset: addressSchema,
  makerAmount: uintStringSchema(256n, { positive: true }),
  takerAmount: uintStringSchema(256n, { positive: true }),
  maker: addressSchema,
  taker: addressSchema,
  signature: hexBytesSchema,
  permitMakerAsset: hexBytesSchema.nullable().optional(),
})

export type OtcOrderBody = z.infer<typeof otcOrderBodySchema>

export const chainIdParamsSchema = z.object({
  chainId: z
    .string()
    .regex(/^\d{1,10}$/, { error: (issue) => `expected a chain id (integer), ${received(issue.input)}` })
    .transform(Number),
})

export const orderHashParamsSchema = z.object({
  orderHash: z
    .string()
    .regex(/^0x[0-9a-fA-F]{64}$/, { error: (issue) => `expected an order hash (0x + 64 hex), ${received(issue.input)}` })
    .transform((value) => value.toLowerCase() as Hex),
})

export const accountParamsSchema = chainIdParamsSchema.extend({ account: addressSchema })

export const fillableBalanceParamsSchema = accountParamsSchema.extend({ token: addressSchema.optional() })
