import { type Address, getAddress, type Hex } from 'viem'
import { z } from 'zod'
import { isGridCrossed } from './price-grid.js'

// Payloads of the market-maker interface (sections 2 and 4 of the maker document), parsed on both sides: the
// sandbox parses what a maker answers, the maker server parses what the service asks. Amounts are bigint inside,
// decimal strings on the wire; addresses are checksummed after parsing (the document leaves their case open).

const received = (input: unknown) =>
  input === undefined
    ? 'nothing'
    : typeof input === 'string'
      ? JSON.stringify(input.slice(0, 80))
      : // A refinement after a transform sees the amount as a bigint: show the string it came from.
        typeof input === 'bigint'
        ? JSON.stringify(input.toString().slice(0, 80))
        : typeof input === 'number'
          ? String(input)
          : typeof input
const expecting = (what: string) => ({ error: (issue: { input?: unknown }) => `expected ${what}, received ${received(issue.input)}` })

export const makerAddressSchema = z
  .string(expecting('an address (0x + 40 hex digits)'))
  .regex(/^0x[0-9a-fA-F]{40}$/, expecting('an address (0x + 40 hex digits)'))
  .transform((value) => getAddress(value.toLowerCase()) as Address)

/** Raw units: a positive decimal integer string below 2^256. */
export const makerAmountSchema = z
  .string(expecting('a positive decimal integer string'))
  .regex(/^\d{1,78}$/, expecting('a positive decimal integer string'))
  .transform((value) => BigInt(value))
  .refine((value) => value > 0n && value < 1n << 256n, expecting('a positive decimal integer string below 2^256'))

const decimalText = z
  .string(expecting('a decimal string such as "1850.25"'))
  .regex(/^\d{1,40}(\.\d{1,40})?$/, expecting('a decimal string such as "1850.25"'))

export const priceLevelSchema = z
  .tuple([decimalText, decimalText], expecting('a [price, amount] pair of decimal strings'))
  .refine(([price]) => /[1-9]/.test(price), { error: 'expected a price above zero' })

const levelsSchema = z.array(priceLevelSchema, expecting('an array of [price, amount] levels')).max(1_000)

export const priceGridSchema = z
  .strictObject({ bids: levelsSchema.optional(), asks: levelsSchema.optional() })
  .refine((grid) => !isGridCrossed(grid), { error: 'crossed book: the highest bid is at or above the lowest ask' })
export type PriceGridWire = z.output<typeof priceGridSchema>

export const makerTokenSchema = z.object({
  symbol: z.string(expecting('a string')),
  name: z.string(expecting('a string')),
  description: z.string(expecting('a string')),
  address: makerAddressSchema,
  decimals: z.number(expecting('an integer from 0 to 36')).int().min(0).max(36),
  type: z.literal('ERC20', expecting('"ERC20" (the only supported type)')),
})
export type MakerToken = z.output<typeof makerTokenSchema>

export const makerPairSchema = z.object({
  base: z.string(expecting('a token id')).min(1),
  quote: z.string(expecting('a token id')).min(1),
  liquidityUSD: z.number(expecting('a number')).nonnegative(),
})
export type MakerPair = z.output<typeof makerPairSchema>

const message = { message: z.string().optional() }
const idKey = z.string().min(1).max(100)

export const tokensResponseSchema = z.object({ tokens: z.record(idKey, makerTokenSchema), ...message })
export const pairsResponseSchema = z.object({ pairs: z.record(idKey, makerPairSchema), ...message })
export const pricesResponseSchema = z.object({ prices: z.record(idKey, priceGridSchema), ...message })
export const blacklistResponseSchema = z.object({
  blacklist: z.array(makerAddressSchema).refine((list) => new Set(list).size === list.length, {
    error: 'expected addresses without duplicates',
  }),
  ...message,
})

/** POST /firm: exactly one of makerAmount and takerAmount. */
export const firmRequestSchema = z
  .strictObject({
    makerAsset: makerAddressSchema,
    takerAsset: makerAddressSchema,
    makerAmount: makerAmountSchema.optional(),
    takerAmount: makerAmountSchema.optional(),
    userAddress: makerAddressSchema,
    takerAddress: makerAddressSchema,
  })
  .superRefine((request, context) => {
    if ((request.makerAmount === undefined) === (request.takerAmount === undefined)) {
      context.addIssue({ code: 'custom', message: 'expected exactly one of makerAmount and takerAmount', path: ['makerAmount'] })
    }
    if (request.makerAsset === request.takerAsset) {
      context.addIssue({ code: 'custom', message: 'expected makerAsset and takerAsset to differ', path: ['takerAsset'] })
    }
  })
export type FirmRequest = z.output<typeof firmRequestSchema>

/** The order of a firm answer as the wire carries it. */
export const firmOrderSchema = z.object({
  nonceAndMeta: makerAmountSchema,
  expiry: z.number(expecting('unix seconds')).int().positive(),
  makerAsset: makerAddressSchema,
  takerAsset: makerAddressSchema,
  maker: makerAddressSchema,
  taker: makerAddressSchema,
  makerAmount: makerAmountSchema,
  takerAmount: makerAmountSchema,
  signature: z
    .string(expecting('0x followed by lowercase hex bytes'))
    .regex(/^0x([0-9a-f]{2})+$/, expecting('0x followed by lowercase hex bytes'))
    .transform((value) => value as Hex),
})
export type FirmOrder = z.output<typeof firmOrderSchema>

/** A blacklisted user gets a success without `order`. */
export const firmResponseSchema = z.object({ order: firmOrderSchema.optional(), ...message })

/** A WebSocket message: any HTTP payload but `order`. Blacklist entries are additions only. */
export const makerStreamMessageSchema = z.strictObject({
  tokens: tokensResponseSchema.shape.tokens.optional(),
  pairs: pairsResponseSchema.shape.pairs.optional(),
  prices: pricesResponseSchema.shape.prices.optional(),
  blacklist: blacklistResponseSchema.shape.blacklist.optional(),
  message: z.string().optional(),
})
export type MakerStreamMessage = z.output<typeof makerStreamMessageSchema>

/** An order as sent: amounts as decimal strings, the nonce word too, lowercase signature. */
export function firmOrderToWire(order: FirmOrder): Record<string, string | number> {
  return {
    nonceAndMeta: order.nonceAndMeta.toString(),
    expiry: order.expiry,
    makerAsset: order.makerAsset.toLowerCase(),
    takerAsset: order.takerAsset.toLowerCase(),
    maker: order.maker.toLowerCase(),
    taker: order.taker.toLowerCase(),
    makerAmount: order.makerAmount.toString(),
    takerAmount: order.takerAmount.toString(),
    signature: order.signature.toLowerCase(),
  }
}
