import { z } from 'zod'
import {
  hashSchema,
  hexSchema,
  integerSchema,
  issueMessage,
  wireAddressSchema,
  wireAmountSchema,
  wireChainIdSchema,
} from '../../domain/wire-fields.js'

export const otcOrderStates = ['DRAFT', 'PENDING', 'FULFILLED', 'CANCELLED', 'SUSPENDED', 'EXPIRED'] as const

export type OtcOrderState = (typeof otcOrderStates)[number]

/** The stored OTC order (section 2.6), as POST /ft/p2p/{chainId}/ and GET /ft/order/{orderHash} return it. */
export const otcOrderSchema = z.object({
  /** EIP-712 hash, the order's id. */
  orderHash: hashSchema,
  chainId: wireChainIdSchema,
  /** Intended taker in the low 160 bits, nonce in the upper 96 (protocol facts). */
  nonceAndMeta: wireAmountSchema,
  /** Unix seconds; 0 never expires. */
  expiry: integerSchema,
  maker: wireAddressSchema,
  taker: wireAddressSchema,
  makerAsset: wireAddressSchema,
  takerAsset: wireAddressSchema,
  makerAmount: wireAmountSchema,
  takerAmount: wireAmountSchema,
  signature: hexSchema,
  permitMakerAsset: hexSchema.nullable(),
  state: z.enum(otcOrderStates),
  /** P2P: a named taker; LIMIT: an open RFQ order. */
  type: z.enum(['P2P', 'LIMIT']),
  takerFromMeta: wireAddressSchema,
  /** Min of the maker's balance, allowance, and balance backing this order. */
  makerBalance: wireAmountSchema,
  /** Remaining unfilled makerAmount. */
  fillableBalance: wireAmountSchema,
  /** Amount reserved by this order (section 2.6; absent from the recorded real objects). */
  reservedBalance: wireAmountSchema.optional(),
  /** Amount fillable right now. */
  swappableBalance: wireAmountSchema,
  /** Fill or cancellation transaction, once settled on-chain. */
  transactionHash: hashSchema.nullable(),
  /** Unix seconds. */
  createdAt: integerSchema,
  /** Unix seconds. */
  updatedAt: integerSchema,
})

export type OtcOrder = z.output<typeof otcOrderSchema>

const wrappedOtcOrderSchema = z.object({ order: otcOrderSchema }).transform(({ order }) => order)

/**
 * The answer of POST /ft/p2p/{chainId}/: the real service wraps the stored order as `{ order }` (the official SDK
 * reads `response.order`), section 2.6 shows it bare; both are read, and a bad field is named by its path in the form
 * that was sent.
 */
export const postedOtcOrderSchema = z.unknown().transform((value, context): OtcOrder => {
  const wrapped = typeof value === 'object' && value !== null && !Array.isArray(value) && 'order' in value && !('orderHash' in value)
  const parsed = (wrapped ? wrappedOtcOrderSchema : otcOrderSchema).safeParse(value, { reportInput: true })
  if (parsed.success) return parsed.data
  for (const issue of parsed.error.issues)
    context.addIssue({ code: 'custom', message: issueMessage(issue), path: issue.path, input: issue.input })
  return z.NEVER
})
