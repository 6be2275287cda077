import { z } from 'zod'

/**
 * A token as the console names it: its symbol and decimals as its chain tells them. When the chain did not tell
 * (a contract that is not a standard ERC-20, a chain that did not answer), `symbol` and `decimals` are null, `name`
 * is the short address and amounts stay in raw units (their `…Units` fields null).
 */
export const tokenLabelSchema = z.object({
  chainId: z.number().int(),
  address: z.string(),
  symbol: z.string().nullable(),
  decimals: z.number().int().nullable(),
  /** The symbol, or `0xa0b8…eb48` when it is unknown. */
  name: z.string(),
})

/** An amount in token units (`-1000`, `0.5089`: decimals applied); null when the token's decimals are unknown. */
export const unitsSchema = z
  .string()
  .regex(/^-?\d+(\.\d+)?$/, 'a decimal string of token units')
  .nullable()

export type TokenLabelView = z.infer<typeof tokenLabelSchema>
