import { z } from 'zod'
import { tokenLabelSchema, unitsSchema } from './token-answer.js'

/** GET /api/balances: the wallet's balances, raw units, each chain read at one block (cached for a few seconds). */
export const balancesAnswerSchema = z.object({
  account: z.string(),
  /** Clock ms of the read; null before the first succeeded. */
  readAt: z.number().nullable(),
  balances: z.array(
    z.object({
      chainId: z.number().int(),
      token: z.string(),
      amount: z.string().regex(/^\d+$/),
      label: tokenLabelSchema,
      amountUnits: unitsSchema,
    }),
  ),
  /** Why the last read failed (the previous balances are kept). */
  error: z.string().nullable(),
})

export type BalancesAnswer = z.infer<typeof balancesAnswerSchema>
