import { z } from 'zod'
import {
  describeReceived,
  intentAddressSchema,
  intentAmountSchema,
  intentChainIdSchema,
  priceImpactPercentSchema,
  slippageBpsSchema,
} from '../../src/index.js'

const expecting = (what: string) => ({
  error: (issue: { input?: unknown }) => `expected ${what}, received ${describeReceived(issue.input)}`,
})

const integerFrom = (minimum: number, maximum: number, what: string) =>
  z.custom<number>(
    (value) => typeof value === 'number' && Number.isSafeInteger(value) && value >= minimum && value <= maximum,
    expecting(what),
  )

/** One chain holding the token, with its relative weight. */
export const chainTargetSchema = z.strictObject({
  chainId: intentChainIdSchema,
  /** The token's address on this chain (the same token in the same raw units on every chain, e.g. USDC). */
  token: intentAddressSchema,
  /** Relative: 60 and 40 aim at 60 % and 40 % of the total. */
  weight: integerFrom(1, 1_000_000, 'a weight (a positive integer, relative to the other chains, e.g. 60 and 40)'),
})

export type ChainTarget = z.output<typeof chainTargetSchema>

export const rebalancerConfigSchema = z.strictObject({
  chains: z
    .array(chainTargetSchema, expecting('a list of { chainId, token, weight }'))
    .min(2, 'expected at least 2 chains to balance between')
    .superRefine((chains, context) => {
      const seen = new Set<number>()
      chains.forEach((chain, index) => {
        if (seen.has(chain.chainId)) {
          context.addIssue({
            code: 'custom',
            message: `expected each chain once, received chain ${chain.chainId} again`,
            path: [index, 'chainId'],
            input: chain.chainId,
          })
        }
        seen.add(chain.chainId)
      })
    }),
  /** How far a share may stray from its target before a transfer, in basis points of the total (200 = ±2 points). */
  bandBps: integerFrom(1, 10_000, 'a band in basis points of the total, from 1 to 10000 (200 = ±2 percentage points)').default(200),
  /** Least raw units worth a transfer: a smaller gap is left alone. */
  minTradeAmount: intentAmountSchema,
  maxSlippageBps: slippageBpsSchema.default(50),
  maxPriceImpactPercent: priceImpactPercentSchema.default(1),
  /**
   * Clock ms to wait for a planned transfer's order to appear when no intent result says it failed; after that the
   * transfer is forgotten and the next balances plan anew.
   */
  placementTimeoutMs: integerFrom(1_000, Number.MAX_SAFE_INTEGER, 'milliseconds (an integer, at least 1000)').default(600_000),
  /**
   * Clock ms after a transfer whose intent failed or was refused without an order before the balances plan again (0:
   * the next balances); doubled with each such failure in a row, up to placementTimeoutMs.
   */
  retryMs: integerFrom(0, Number.MAX_SAFE_INTEGER, 'milliseconds (an integer, at least 0)').default(60_000),
})

export type RebalancerConfig = z.output<typeof rebalancerConfigSchema>
