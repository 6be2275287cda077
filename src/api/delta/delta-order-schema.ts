import { z } from 'zod'
import {
  dateTimeSchema,
  hashSchema,
  integerSchema,
  uuidSchema,
  wireAddressSchema,
  wireAmountSchema,
  wireChainIdSchema,
  wireNullableAmountSchema,
  wireSideSchema,
} from '../../domain/wire-fields.js'
import { deltaOrderStatuses, onChainOrderTypes } from '../../protocol/delta-status.js'
import { jsonObjectSchema } from '../json.js'

// The Delta V2 order every order endpoint returns (section 2.2) and the order list (section 2.3).

export const deltaOrderTypeSchema = z.enum(['MARKET', 'LIMIT'])

/**
 * One side of the order. SELL: input has `amount`, output `expectedAmount` / `executedAmount` (and `minAmount`, the
 * signed destAmount, where the service sends it); BUY the other way round.
 */
const orderLegSchema = z.object({
  chainId: wireChainIdSchema,
  token: wireAddressSchema,
  amount: wireAmountSchema.optional(),
  expectedAmount: wireNullableAmountSchema.optional(),
  executedAmount: wireNullableAmountSchema.optional(),
  minAmount: wireAmountSchema.optional(),
})

const orderTransactionSchema = z.object({
  originTx: hashSchema,
  /** Set on crosschain orders once the fill landed on the destination chain. */
  destinationTx: hashSchema.nullish().transform((value) => value ?? null),
  /** 0 to 100. */
  filledPercent: z.number(),
  spentAmount: wireNullableAmountSchema,
  receivedAmount: wireNullableAmountSchema,
})

const refundSchema = z.object({ tx: hashSchema, chainId: wireChainIdSchema, token: wireAddressSchema, amount: wireAmountSchema })

const deltaOrderV2Schema = z.object({
  id: uuidSchema,
  status: z.enum(deltaOrderStatuses),
  side: wireSideSchema,
  type: deltaOrderTypeSchema,
  onChainOrderType: z.enum(onChainOrderTypes),
  input: orderLegSchema,
  output: orderLegSchema,
  owner: wireAddressSchema,
  beneficiary: wireAddressSchema,
  orderHash: hashSchema,
  partner: z.string(),
  /** The signed on-chain struct, as submitted (its fields are not part of the documented shape). */
  order: jsonObjectSchema,
  transactions: z.array(orderTransactionSchema),
  /** Crosschain bridge refunds, once their receipts are verified. */
  refunds: z.array(refundSchema),
  /** Unix milliseconds. */
  createdAt: dateTimeSchema,
  /** Unix milliseconds. */
  updatedAt: dateTimeSchema,
  /** Unix milliseconds. */
  expiresAt: dateTimeSchema,
})

/** A Delta V2 order; older shapes (Delta V1, the V1 endpoints' object) are refused with a message that says so. */
export const deltaOrderSchema = z
  .unknown()
  .superRefine((value, context) => {
    const problem = legacyOrderProblem(value)
    if (problem) context.addIssue({ code: 'custom', message: problem, input: value })
  })
  .pipe(deltaOrderV2Schema)

export type DeltaOrder = z.output<typeof deltaOrderSchema>

function legacyOrderProblem(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined
  const fields = new Map(Object.entries(value))
  const version = fields.get('deltaVersion')
  if (typeof version === 'string' && version.startsWith('1')) {
    return `a Delta V1 order (deltaVersion ${JSON.stringify(version)}); this client reads Delta V2 orders (section 2.2 of the API document)`
  }
  if (fields.has('user') && !fields.has('owner')) {
    const status = JSON.stringify(fields.get('status'))
    return `an order in the legacy shape of the V1 endpoints (status ${status}, \`user\` instead of \`owner\`, no input / output); this client reads Delta V2 orders (section 2.2 of the API document)`
  }
  return undefined
}

export const deltaOrderListSchema = z
  .unknown()
  .superRefine((value, context) => {
    if (Array.isArray(value)) {
      context.addIssue({
        code: 'custom',
        message: 'a bare array of orders (the Delta V1 list shape); the V2 list is an object {data, total, page, limit, hasMore}',
        input: value,
      })
    }
  })
  .pipe(
    z.object({ data: z.array(deltaOrderSchema), total: integerSchema, page: integerSchema, limit: integerSchema, hasMore: z.boolean() }),
  )

export type DeltaOrderList = z.output<typeof deltaOrderListSchema>
