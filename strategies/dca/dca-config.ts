import { z } from 'zod'
import { describeReceived, intentAddressSchema, intentChainIdSchema } from '../../src/index.js'

const expecting = (what: string) => ({
  error: (issue: { input?: unknown }) => `expected ${what}, received ${describeReceived(issue.input)}`,
})

const rawAmountText = 'a raw amount above 0 as a decimal integer string (e.g. "1000000000"; quote it in YAML)'

/** Raw token units: a quoted decimal integer string (a YAML number loses precision beyond 2^53), as a bigint. */
const rawAmountSchema = z
  .string(expecting(rawAmountText))
  .regex(/^\d{1,78}$/, expecting(rawAmountText))
  .transform((value) => BigInt(value))
  .refine((value) => value > 0n, expecting(rawAmountText))

const integerAtLeast = (minimum: number, unit: string) =>
  z
    .number(expecting(`an integer number of ${unit}, at least ${minimum}`))
    .int(expecting(`an integer number of ${unit}`))
    .min(minimum, {
      error: (issue) => `expected an integer number of ${unit}, at least ${minimum}, received ${describeReceived(issue.input)}`,
    })

/** A price as a ratio of raw amounts: `srcAmount` of the source token for `destAmount` of the destination token. */
const priceSchema = z.strictObject(
  { srcAmount: rawAmountSchema, destAmount: rawAmountSchema },
  expecting('a price { srcAmount, destAmount } in raw units (srcAmount of srcToken buys destAmount of destToken)'),
)

export type DcaPrice = z.output<typeof priceSchema>

const guardSchema = z
  .strictObject(
    {
      /** Which quote the guard reads: a Market route (GET /prices) or a Delta price (GET /v2/delta/prices). */
      source: z.enum(['market', 'delta'], expecting('market or delta')).default('market'),
      /** Do not buy when destToken costs more than this (source per destination). */
      maxPrice: priceSchema.optional(),
      /** Do not buy when destToken costs less than this (e.g. a feed gone wrong). */
      minPrice: priceSchema.optional(),
      /** skip: the due order is given up (its share stays in the budget); pause: the schedule waits until the price is back. */
      action: z.enum(['skip', 'pause'], expecting('skip or pause')).default('pause'),
      /** A quote older than this (clock seconds) is no evidence: the schedule waits for a fresh one. */
      maxQuoteAgeSeconds: integerAtLeast(1, 'seconds').default(120),
      /** Also sign maxPrice into every TWAP as its least destination amount per slice, so no slice fills above it. */
      enforceOnSlices: z.boolean(expecting('true or false')).default(true),
    },
    expecting('a guard object { source, maxPrice, minPrice, action, maxQuoteAgeSeconds, enforceOnSlices }'),
  )
  .refine((guard) => guard.maxPrice !== undefined || guard.minPrice !== undefined, {
    error: 'expected maxPrice, minPrice or both (a guard without a limit guards nothing)',
  })

export type DcaGuard = z.output<typeof guardSchema>

/** The config of the dca strategy; see the doc comment of strategies/dca/index.ts. */
export const dcaConfigSchema = z
  .strictObject({
    chainId: intentChainIdSchema,
    /** Spent. */
    srcToken: intentAddressSchema,
    /** Bought. */
    destToken: intentAddressSchema,
    /** Raw units of srcToken spent over the whole period, at most. */
    budget: rawAmountSchema,
    /** Clock seconds the budget is spread over. */
    periodSeconds: integerAtLeast(120, 'seconds'),
    /** TWAP orders the period is split into; each starts when the one before is final. */
    orders: integerAtLeast(1, 'orders'),
    /** Slices of each TWAP order (at least 2, as the service requires). */
    slicesPerOrder: integerAtLeast(2, 'slices'),
    maxSlippageBps: z
      .number(expecting('basis points from 0 to 10000'))
      .int(expecting('an integer number of basis points'))
      .min(0, expecting('basis points from 0 to 10000'))
      .max(10_000, expecting('basis points from 0 to 10000'))
      .default(50),
    maxPriceImpactPercent: z
      .number(expecting('a percentage above 0 and at most 100'))
      .positive(expecting('a percentage above 0 and at most 100'))
      .max(100, expecting('a percentage above 0 and at most 100'))
      .default(2),
    guard: guardSchema.optional(),
    /** Clock seconds between checks of the schedule (besides every quote and order event). */
    checkIntervalSeconds: integerAtLeast(1, 'seconds').default(30),
    /**
     * Clock seconds to wait for a placed order to appear in the journal, when no intent result says it failed, before
     * its slot is given up (its amount stays committed).
     */
    placementTimeoutSeconds: integerAtLeast(1, 'seconds').default(600),
    /** Clock seconds after a failed placement before its slot is placed again (under a new intent key). */
    retrySeconds: integerAtLeast(1, 'seconds').default(60),
    /** Placements of a slot again after a failure, at most; then the slot is skipped (its share stays in the budget). */
    retriesPerSlot: integerAtLeast(0, 'retries').default(5),
  })
  .superRefine((config, context) => {
    const slots = config.orders * config.slicesPerOrder
    if (Math.floor(config.periodSeconds / slots) < 60) {
      context.addIssue({
        code: 'custom',
        path: ['periodSeconds'],
        input: config.periodSeconds,
        message: `expected at least ${slots * 60} seconds (orders × slicesPerOrder × 60: a TWAP interval is at least 60 s), received ${config.periodSeconds}`,
      })
    }
    if (config.budget < BigInt(slots)) {
      context.addIssue({
        code: 'custom',
        path: ['budget'],
        input: config.budget,
        message: `expected at least orders × slicesPerOrder = ${slots} raw units (a slice is at least 1 raw unit), received ${config.budget}`,
      })
    }
    if (config.srcToken === config.destToken) {
      context.addIssue({
        code: 'custom',
        path: ['destToken'],
        input: config.destToken,
        message: `expected a token other than srcToken, received ${config.destToken}`,
      })
    }
  })

export type DcaConfig = z.output<typeof dcaConfigSchema>

/** Seconds between two slices of a TWAP: the period shared evenly by every slice of every order. */
export function intervalSecondsOf(config: Pick<DcaConfig, 'periodSeconds' | 'orders' | 'slicesPerOrder'>): number {
  return Math.floor(config.periodSeconds / (config.orders * config.slicesPerOrder))
}

/** Clock ms between the starts of two orders of the schedule. */
export function orderSpacingMsOf(config: Pick<DcaConfig, 'periodSeconds' | 'orders' | 'slicesPerOrder'>): number {
  return intervalSecondsOf(config) * config.slicesPerOrder * 1000
}

/** The size the guard's quote is asked for: one slice of an evenly spent budget. */
export function nominalSliceAmountOf(config: Pick<DcaConfig, 'budget' | 'orders' | 'slicesPerOrder'>): bigint {
  return config.budget / BigInt(config.orders * config.slicesPerOrder)
}
