import { z } from 'zod'
import { describeReceived, intentAddressSchema } from '../../src/index.js'

const expecting = (what: string) => ({
  error: (issue: { input?: unknown }) => `expected ${what}, received ${describeReceived(issue.input)}`,
})

const decimalPattern = /^\d{1,40}(\.\d{1,40})?$/

/** Whole token units (or a price) as a decimal string: "0.5", "1850.25". */
const decimalText = (what: string, positive = true) =>
  z
    .string(expecting(`${what} as a decimal string such as "0.5" (quote it in YAML)`))
    .regex(decimalPattern, expecting(`${what} as a decimal string such as "0.5" (quote it in YAML)`))
    .refine((value) => !positive || /[1-9]/.test(value), expecting(`${what} above zero`))

const integerFrom = (minimum: number, maximum: number, unit: string) =>
  z.custom<number>(
    (value) => typeof value === 'number' && Number.isSafeInteger(value) && value >= minimum && value <= maximum,
    expecting(`an integer number of ${unit} from ${minimum} to ${maximum}`),
  )

const tokenIdSchema = z.string().regex(/^[A-Za-z0-9._-]{1,40}$/, 'expected a token id such as WETH')
const pairIdSchema = z.string().regex(/^[A-Za-z0-9._/-]{1,100}$/, 'expected a pair id such as WETH/USDC')

/** A token the maker trades on one chain: what `/tokens` says of it, and its inventory limits. */
const tokenSchema = z.strictObject({
  address: intentAddressSchema,
  decimals: integerFrom(0, 36, 'decimals'),
  /** Default: the token id. */
  symbol: z.string().min(1).optional(),
  /** Default: the symbol. */
  name: z.string().min(1).optional(),
  description: z.string().default(''),
  /** Risk: the maker switches off while the wallet holds less than this (whole tokens). */
  minBalance: decimalText('a balance', false).optional(),
  /** Risk: the maker switches off while the wallet holds more than this (whole tokens). */
  maxBalance: decimalText('a balance').optional(),
})

const referenceSchema = z.discriminatedUnion(
  'source',
  [
    z.strictObject({
      /** The service's Market quotes (without RFQ liquidity) of `size` whole base tokens. */
      source: z.literal('market'),
      size: decimalText('a reference size in whole base tokens'),
      sides: z.enum(['both', 'sell', 'buy']).default('both'),
    }),
    z.strictObject({ source: z.literal('fixed'), price: decimalText('a price in quote per base') }),
  ],
  expecting('a reference: { source: market, size } or { source: fixed, price }'),
)

/** One pair's grid: see the strategy's doc comment. */
const pairSchema = z
  .strictObject({
    base: tokenIdSchema,
    quote: tokenIdSchema,
    reference: referenceSchema,
    levels: integerFrom(1, 50, 'levels').default(3),
    /** Distance of the first bid and ask from the (skewed) mid. */
    spreadBps: integerFrom(1, 5_000, 'basis points'),
    /** Distance between two levels of a side. */
    stepBps: integerFrom(0, 5_000, 'basis points').default(10),
    /** Whole base tokens at the first level. */
    size: decimalText('a level size in whole base tokens'),
    /** Each level is this much larger than the one before it (0: equal levels). */
    sizeGrowthBps: integerFrom(0, 100_000, 'basis points').default(0),
    /** Largest move of the mid against the inventory (0: no skew). */
    maxSkewBps: integerFrom(0, 5_000, 'basis points').default(0),
    /** The share of the pair's value the wallet aims to hold in base, in basis points (5000: half). */
    targetBaseShareBps: integerFrom(1, 9_999, 'basis points').default(5_000),
    /** Decimals of the grid's prices. Default: the quote token's decimals. */
    priceDecimals: integerFrom(0, 36, 'decimals').optional(),
    /** USD value of one quote token, for the informational `liquidityUSD` (default 1: a dollar stablecoin). */
    quoteUsd: decimalText('a USD price').default('1'),
    /** Risk: the maker switches off once firm quotes of the pair reach this notional (whole quote tokens) over the window. */
    maxFirmNotional: z
      .strictObject({ amount: decimalText('a notional in whole quote tokens'), windowSeconds: integerFrom(1, 30 * 86_400, 'seconds') })
      .optional(),
  })
  .refine((pair) => pair.spreadBps + (pair.levels - 1) * pair.stepBps < 10_000, {
    error: 'expected spreadBps + (levels − 1) × stepBps below 10000 (the deepest bid must stay above zero)',
    path: ['stepBps'],
  })

const chainSchema = z.strictObject({
  tokens: z.record(tokenIdSchema, tokenSchema),
  pairs: z.record(pairIdSchema, pairSchema),
  /** Pairs being retired: still listed in /pairs, served with `{}` prices (then remove them from `pairs`). */
  retire: z.array(pairIdSchema).default([]),
  /** Users refused firm quotes (a success without an order, as the maker document says). */
  blacklist: z.array(intentAddressSchema).default([]),
})

export const marketMakerConfigSchema = z
  .strictObject({
    /** The maker switches off when a pair's reference price is older than this (clock seconds). */
    maxReferenceAgeSeconds: z.number().positive().default(60),
    chains: z.record(z.string().regex(/^[1-9]\d*$/, 'expected a chain id such as "1"'), chainSchema),
  })
  .superRefine((config, context) => {
    for (const [chainId, chain] of Object.entries(config.chains)) {
      const at = (...path: (string | number)[]) => ['chains', chainId, ...path]
      const addresses = new Map<string, string>()
      for (const [id, token] of Object.entries(chain.tokens)) {
        const other = addresses.get(token.address)
        if (other !== undefined)
          context.addIssue({ code: 'custom', message: `the same address as token ${other}`, path: at('tokens', id, 'address') })
        addresses.set(token.address, id)
      }
      for (const [id, pair] of Object.entries(chain.pairs)) {
        for (const side of ['base', 'quote'] as const) {
          if (!(pair[side] in chain.tokens)) {
            context.addIssue({
              code: 'custom',
              message: `expected a token listed under chains.${chainId}.tokens, received "${pair[side]}"`,
              path: at('pairs', id, side),
            })
          }
        }
        if (pair.base === pair.quote)
          context.addIssue({ code: 'custom', message: 'expected base and quote to differ', path: at('pairs', id, 'quote') })
      }
      chain.retire.forEach((id, index) => {
        if (!(id in chain.pairs))
          context.addIssue({
            code: 'custom',
            message: `expected a pair listed under chains.${chainId}.pairs, received "${id}"`,
            path: at('retire', index),
          })
      })
    }
  })

export type MarketMakerConfig = z.output<typeof marketMakerConfigSchema>
export type MarketMakerChain = MarketMakerConfig['chains'][string]
export type MarketMakerPair = MarketMakerChain['pairs'][string]
export type MarketMakerToken = MarketMakerChain['tokens'][string]
