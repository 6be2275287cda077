import { z } from 'zod'
import { wireAddressSchema, wireChainIdSchema } from '../../domain/wire-fields.js'
import { jsonObjectSchema } from '../json.js'

// `toSign` of the Delta builds: EIP-712 typed data built by the service, signed and sent back exactly as returned.

const typedDataFieldSchema = z.object({ name: z.string(), type: z.string() })

export const toSignSchema = z
  .object({
    domain: z.object({ name: z.string(), version: z.string(), chainId: wireChainIdSchema, verifyingContract: wireAddressSchema }),
    types: z.record(z.string(), z.array(typedDataFieldSchema)),
    /** The struct to sign; for an order also the `order` of the submission, verbatim. */
    value: jsonObjectSchema,
  })
  .transform((toSign, context) => {
    const primaryType = primaryTypeOf(toSign.types)
    if (primaryType === undefined) {
      context.addIssue({
        code: 'custom',
        message: 'expected exactly one type that no other type refers to (the primary type)',
        path: ['types'],
      })
      return z.NEVER
    }
    return { ...toSign, primaryType }
  })

export type ToSign = z.output<typeof toSignSchema>

/** The primary type of typed data: the one type no other type refers to (EIP712Domain aside). */
function primaryTypeOf(types: Readonly<Record<string, readonly { type: string }[]>>): string | undefined {
  const names = Object.keys(types).filter((name) => name !== 'EIP712Domain')
  const referenced = new Set(Object.values(types).flatMap((fields) => fields.map((field) => field.type.replace(/(\[\d*\])+$/, ''))))
  const roots = names.filter((name) => !referenced.has(name))
  return roots.length === 1 ? roots[0] : undefined
}
