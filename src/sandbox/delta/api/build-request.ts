import { z } from 'zod'
import { zeroAddress } from '../../../protocol/addresses.js'
import { amountStringSchema, checksumAddressSchema, hexSchema, queryIntegerSchema, sideSchema } from './wire.js'

const orderTypes = ['Order', 'FillableOrder', 'ProductiveOrder', 'ExternalOrder', 'TWAPOrder', 'TWAPBuyOrder'] as const

/**
 * BuildOrderV2Request of the OpenAPI document, plus FillableOrder among the order types and `type` (MARKET / LIMIT),
 * so that a LIMIT build can be told apart. TWAP fields are checked by the struct builders, which answer the
 * documented InvalidTWAP* errors.
 */
export const buildRequestSchema = z.object({
  route: z.record(z.string(), z.unknown()),
  side: sideSchema.default('SELL'),
  owner: checksumAddressSchema,
  beneficiary: checksumAddressSchema.optional(),
  deadline: z.number().int().positive(),
  nonce: amountStringSchema.optional(),
  permit: hexSchema.default('0x'),
  slippage: z.number().int().min(0).max(10_000).default(100),
  limitAmount: amountStringSchema.optional(),
  metadata: hexSchema.default('0x'),
  partiallyFillable: z.boolean().default(false),
  type: z.enum(['MARKET', 'LIMIT']).optional(),
  partner: z.string().optional(),
  partnerAddress: checksumAddressSchema.default(zeroAddress),
  partnerFeeBps: queryIntegerSchema.pipe(z.number().int().min(0).max(200)).default(0),
  partnerTakesSurplus: z.boolean().default(false),
  capSurplus: z.boolean().default(true),
  orderType: z.enum(orderTypes).default('Order'),
  handler: checksumAddressSchema.optional(),
  data: hexSchema.optional(),
  strategy: checksumAddressSchema.optional(),
  useShares: z.boolean().optional(),
  interval: z.number().int().optional(),
  numSlices: z.number().int().optional(),
  totalSrcAmount: amountStringSchema.optional(),
  totalDestAmount: amountStringSchema.optional(),
  maxSrcAmount: amountStringSchema.optional(),
})

export type BuildRequest = z.infer<typeof buildRequestSchema>

/** LIMIT and TWAP orders settle over time (section 5.6: they must use an on-chain approval). */
export function settlesOverTime(request: BuildRequest): boolean {
  return (
    request.orderType === 'FillableOrder' ||
    request.orderType === 'TWAPOrder' ||
    request.orderType === 'TWAPBuyOrder' ||
    request.partiallyFillable ||
    request.type === 'LIMIT'
  )
}
