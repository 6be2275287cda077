import { z } from 'zod'
import { hexSchema, wireAddressSchema, wireAmountSchema, wireChainIdSchema } from '../../domain/wire-fields.js'

/** The transaction envelope of POST /transactions/{chainId} and `txParams` of GET /swap (section 2.5). */
export const marketTransactionSchema = z.object({
  /** The request's userAddress. */
  from: wireAddressSchema,
  /** The router: send the transaction here; it is also the ERC-20 spender to approve. */
  to: wireAddressSchema,
  /** Native amount, wei. */
  value: wireAmountSchema,
  data: hexSchema,
  /** Suggested gas price, wei (absent with eip1559). */
  gasPrice: wireAmountSchema.optional(),
  maxFeePerGas: wireAmountSchema.optional(),
  maxPriorityFeePerGas: wireAmountSchema.optional(),
  /** Gas estimate of the service's checks; absent with ignoreChecks / ignoreGasEstimate and on GET /swap. */
  gas: wireAmountSchema.optional(),
  chainId: wireChainIdSchema,
})

export type MarketTransaction = z.output<typeof marketTransactionSchema>
