import { z } from 'zod'
import {
  addressParam,
  amountParam,
  basisPointsParam,
  booleanParam,
  integerParam,
  listParam,
  numberParam,
  tokenParam,
} from './market-query.js'

/** Query of GET /prices (section 4.2) with its defaults; GET /swap and the unified quote reuse it. */
export const pricesQuerySchema = z.object({
  srcToken: tokenParam,
  destToken: tokenParam,
  srcDecimals: integerParam({ max: 255 }).optional(),
  destDecimals: integerParam({ max: 255 }).optional(),
  amount: amountParam(),
  side: z.enum(['SELL', 'BUY'], { error: (issue) => `expected SELL or BUY, received ${JSON.stringify(issue.input)}` }).default('SELL'),
  network: integerParam({ min: 1 }).default(1),
  otherExchangePrices: booleanParam.default(false),
  includeDEXS: listParam.optional(),
  excludeDEXS: listParam.optional(),
  /** Leaves registered market makers (exchange AugustusRFQ) out of routing. */
  excludeRFQ: booleanParam.default(false),
  includeContractMethods: listParam.optional(),
  excludeContractMethods: listParam.optional(),
  userAddress: addressParam.optional(),
  /** Dash-separated tokens (addresses or symbols), at most 4. */
  route: z.string().max(1000).optional(),
  partner: z.string().min(1).max(100).default('anon'),
  /** The partner's own fee on top of the registered one (200 = 2 %): `partnerFee` and `destAmountAfterFee` include it. */
  partnerFeeBps: integerParam({ max: 200 }).optional(),
  /** Percent. */
  maxImpact: numberParam().default(15),
  receiver: addressParam.optional(),
  // Transfer taxes the caller declares for the tokens (transfer-taxes.ts): the route's amounts are what the user
  // sends and receives after them. The sandbox's own tokens charge none.
  srcTokenTransferFee: basisPointsParam.optional(),
  destTokenTransferFee: basisPointsParam.optional(),
  srcTokenDexTransferFee: basisPointsParam.optional(),
  destTokenDexTransferFee: basisPointsParam.optional(),
  version: z
    .union([z.enum(['5', '6.2']), z.literal(5), z.literal(6.2)], {
      error: (issue) => `expected 5 or 6.2, received ${JSON.stringify(issue.input)}`,
    })
    .transform((value) => String(value) as '5' | '6.2')
    .default('5'),
  /** Every sandbox contract method has the fee model, so this changes nothing. */
  excludeContractMethodsWithoutFeeModel: booleanParam.default(false),
  ignoreBadUsdPrice: booleanParam.default(false),
})

export type PricesQuery = z.infer<typeof pricesQuerySchema>
/** What a caller passes: the wire form (strings) or typed values. */
export type PricesQueryInput = z.input<typeof pricesQuerySchema>
