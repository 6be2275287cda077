import { z } from 'zod'
import { addressSchema, amountSchema, chainIdSchema, hexSchema } from '../wire.js'

/** The transaction envelope of POST /transactions/{chainId} and `txParams` of GET /swap (section 2.5). */
export const marketTransactionSchema = z.object({
  /** The request's userAddress. */
  from: addressSchema,
  /** The router: send the transaction here; it is also the ERC-20 spender to approve. */
  to: addressSchema,
  /** Native amount, wei. */
  value: amountSchema,
  data: hexSchema,
  /** Suggested gas price, wei (absent with eip1559). */
  gasPrice: amountSchema.optional(),
  maxFeePerGas: amountSchema.optional(),
  maxPriorityFeePerGas: amountSchema.optional(),
  /** Gas estimate of the service's checks; absent with ignoreChecks / ignoreGasEstimate and on GET /swap. */
  gas: amountSchema.optional(),
  chainId: chainIdSchema,
})

export type MarketTransaction = z.output<typeof marketTransactionSchema>
