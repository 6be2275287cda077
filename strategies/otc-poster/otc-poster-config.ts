import { isAddressEqual, zeroAddress } from 'viem'
import { z } from 'zod'
import { describeReceived, intentAddressSchema, intentChainIdSchema } from '../../src/index.js'

const expecting = (what: string) => ({
  error: (issue: { input?: unknown }) => `expected ${what}, received ${describeReceived(issue.input)}`,
})

const rawAmountSchema = z
  .custom<string>(
    (value) => typeof value === 'string' && /^\d{1,78}$/.test(value) && BigInt(value) > 0n,
    expecting('a positive raw amount as a decimal integer string such as "1000000" (the token\'s smallest units)'),
  )
  .transform((value) => BigInt(value))

const integerBetween = (minimum: number, maximum: number, what: string) =>
  z.custom<number>(
    (value) => typeof value === 'number' && Number.isSafeInteger(value) && value >= minimum && value <= maximum,
    expecting(`${what}, an integer from ${minimum} to ${maximum}`),
  )

/** The config of the otc-poster strategy; amounts are raw units (decimal strings in YAML, bigint after parsing). */
export const otcPosterConfigSchema = z
  .strictObject({
    chainId: intentChainIdSchema,
    /** What the wallet sells (an ERC-20; wrap the native asset first). */
    makerAsset: intentAddressSchema,
    /** What the wallet receives. */
    takerAsset: intentAddressSchema,
    /** Raw units of makerAsset sold in all; also the size of the quote the price comes from. */
    makerAmount: rawAmountSchema,
    /** The named counterparty: only this address can fill the orders. */
    taker: intentAddressSchema,
    /** Where the reference price comes from: Market (GET /prices) or Delta (GET /v2/delta/prices). */
    quoteSource: z.enum(['market', 'delta'], expecting('market or delta')).default('market'),
    /** Basis points added to the quoted takerAmount (100 = 1 %); negative gives the counterparty a discount. */
    premiumBps: integerBetween(-5_000, 10_000, 'basis points (100 = 1 %)').default(0),
    /** Floor of the asked takerAmount for the whole makerAmount, whatever the quote says. */
    minTakerAmount: rawAmountSchema.optional(),
    /** How long each posted order stays fillable, in seconds of the bot's clock. */
    expirySeconds: integerBetween(30, 31_536_000, 'seconds').default(3_600),
    /** Most orders posted over the strategy's life (the first post counts); absent: re-post after every expiry. */
    maxPosts: integerBetween(1, 1_000_000, 'posts').optional(),
    /** A quote older than this when it reaches the strategy is not used to price an order. */
    maxQuoteAgeSeconds: integerBetween(1, 3_600, 'seconds').default(60),
    /** When the strategy stops, cancel the live order on chain (the RFQ contract's cancelOrder; costs gas). */
    cancelOnStop: z.boolean(expecting('true or false')).default(true),
  })
  .superRefine((config, context) => {
    if (config.makerAsset === config.takerAsset) {
      context.addIssue({
        code: 'custom',
        path: ['takerAsset'],
        message: `expected a token other than makerAsset, received ${config.takerAsset}`,
        input: config.takerAsset,
      })
    }
    if (isAddressEqual(config.taker, zeroAddress)) {
      context.addIssue({
        code: 'custom',
        path: ['taker'],
        message: 'expected the address of the named counterparty, received the zero address (an order open to anyone is not P2P)',
        input: config.taker,
      })
    }
  })

export type OtcPosterConfig = z.output<typeof otcPosterConfigSchema>
