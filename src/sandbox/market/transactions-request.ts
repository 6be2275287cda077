import type { Hex } from 'viem'
import { z } from 'zod'
import { addressParam, amountParam, booleanParam, integerParam, tokenParam } from './market-query.js'

const received = (input: unknown) => `received ${JSON.stringify(input) ?? String(input)}`

export const transactionsParamsSchema = z.object({ chainId: integerParam({ min: 1 }) })

/** Query of POST /transactions/{chainId}. */
export const transactionsQuerySchema = z.object({
  /** Wei. */
  gasPrice: amountParam().optional(),
  ignoreChecks: booleanParam.default(false),
  ignoreGasEstimate: booleanParam.default(false),
  onlyParams: booleanParam.default(false),
  eip1559: booleanParam.default(false),
})

export type TransactionsQuery = z.infer<typeof transactionsQuerySchema>

/** Partner and surplus fields shared by POST /transactions (body) and GET /swap (query). */
export const partnerOptionsSchema = z.object({
  partner: z.string().min(1).max(100).optional(),
  partnerAddress: addressParam.optional(),
  /** 200 = 2 %; production sends it as a string. */
  partnerFeeBps: integerParam({ max: 200 }).optional(),
  isCapSurplus: booleanParam.default(true),
  takeSurplus: booleanParam.default(false),
  isSurplusToUser: booleanParam.default(false),
  isDirectFeeTransfer: booleanParam.default(false),
})

export type PartnerOptions = z.infer<typeof partnerOptionsSchema>

/** Body of POST /transactions/{chainId}; `priceRoute` is checked against its hmac separately, before this schema. */
export const transactionsBodySchema = partnerOptionsSchema.extend({
  priceRoute: z.record(z.string(), z.unknown(), {
    error: (issue) => `expected the priceRoute object of GET /prices, ${received(issue.input)}`,
  }),
  srcToken: tokenParam,
  destToken: tokenParam,
  userAddress: addressParam,
  srcDecimals: integerParam({ max: 255 }).optional(),
  destDecimals: integerParam({ max: 255 }).optional(),
  srcAmount: amountParam().optional(),
  destAmount: amountParam().optional(),
  /** Basis points. */
  slippage: integerParam({ max: 10_000 }).optional(),
  /** The account that sends the transaction when userAddress is the intermediary contract that calls the router. */
  txOrigin: addressParam.optional(),
  receiver: addressParam.optional(),
  permit: z
    .string()
    .regex(/^0x([0-9a-fA-F]{2})*$/, { error: (issue) => `expected 0x-prefixed hex bytes, ${received(issue.input)}` })
    .transform((value) => value as Hex)
    .optional(),
  /** Unix seconds. */
  deadline: integerParam().optional(),
})

export type TransactionsBody = z.infer<typeof transactionsBodySchema>

/** JSON `null` in an optional body field means "not sent". */
export function dropNullFields(body: unknown): unknown {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return body
  return Object.fromEntries(Object.entries(body).filter(([, value]) => value !== null))
}
