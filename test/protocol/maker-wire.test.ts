import { describe, expect, it } from 'vitest'
import type { z } from 'zod'
import {
  blacklistResponseSchema,
  firmOrderSchema,
  firmOrderToWire,
  firmRequestSchema,
  firmResponseSchema,
  makerStreamMessageSchema,
  pairsResponseSchema,
  pricesResponseSchema,
  tokensResponseSchema,
} from '../../src/protocol/maker-wire.js'

const weth = '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2'
const usdc = '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48'
const user = '0x90F79bf6EB2c4f870365E785982E1f101E93b906'
const router = '0x6a000f20005980200259b80c5102003040001068'

/** The problems of a refused value as `path: message` lines. */
function problems(schema: z.ZodType, value: unknown): string[] {
  const result = schema.safeParse(value)
  if (result.success) throw new Error(`expected a refusal, the value parsed: ${JSON.stringify(value)}`)
  return result.error.issues.map((issue) => `${issue.path.map(String).join('.')}: ${issue.message}`)
}

const wethToken = {
  symbol: 'WETH',
  name: 'Wrapped Ether',
  description: 'Canonical wrapped Ether',
  address: weth,
  decimals: 18,
  type: 'ERC20',
}
const firmRequest = { makerAsset: weth, takerAsset: usdc, takerAmount: '2000000000', userAddress: user, takerAddress: router }

describe('maker wire schemas: tokens and pairs', () => {
  it('accepts the document shape of /tokens, checksumming the address', () => {
    const parsed = tokensResponseSchema.parse({ tokens: { WETH: { ...wethToken, address: weth.toLowerCase() } }, message: 'hello' })
    expect(parsed.tokens.WETH?.address).toBe(weth)
    expect(parsed.message).toBe('hello')
  })

  it('refuses a token type other than ERC20 and a bad address, naming the fields', () => {
    expect(problems(tokensResponseSchema, { tokens: { X: { ...wethToken, type: 'ERC721', address: '0x12', decimals: 18.5 } } })).toEqual([
      'tokens.X.address: expected an address (0x + 40 hex digits), received "0x12"',
      'tokens.X.decimals: expected an integer from 0 to 36, received 18.5',
      'tokens.X.type: expected "ERC20" (the only supported type), received "ERC721"',
    ])
  })

  it('accepts the document shape of /pairs and refuses a negative liquidity', () => {
    expect(pairsResponseSchema.parse({ pairs: { 'WETH/USDC': { base: 'WETH', quote: 'USDC', liquidityUSD: 1.5e6 } } }).pairs).toEqual({
      'WETH/USDC': { base: 'WETH', quote: 'USDC', liquidityUSD: 1.5e6 },
    })
    expect(problems(pairsResponseSchema, { pairs: { 'WETH/USDC': { base: 'WETH', quote: 'USDC', liquidityUSD: -1 } } })).toHaveLength(1)
  })
})

describe('maker wire schemas: prices', () => {
  it('accepts bids and asks, one side only, and {} for a retired pair', () => {
    const prices = {
      'WETH/USDC': { bids: [['1999.5', '1.25']], asks: [['2000.5', '1.25']] },
      'WBTC/USDC': { bids: [['60000', '0.5']] },
      'OLD/USDC': {},
    }
    expect(pricesResponseSchema.parse({ prices }).prices).toEqual(prices)
  })

  it('refuses a crossed book compared as numbers ("10" over "9.5")', () => {
    expect(problems(pricesResponseSchema, { prices: { 'A/B': { bids: [['10', '1']], asks: [['9.5', '1']] } } })).toEqual([
      'prices.A/B: crossed book: the highest bid is at or above the lowest ask',
    ])
  })

  it('refuses a price in exponent form, a zero price, numbers instead of strings and an unknown key', () => {
    expect(problems(pricesResponseSchema, { prices: { 'A/B': { bids: [['1e3', '1']] } } })).toEqual([
      'prices.A/B.bids.0.0: expected a decimal string such as "1850.25", received "1e3"',
    ])
    expect(problems(pricesResponseSchema, { prices: { 'A/B': { bids: [['0.0', '1']] } } })).toEqual([
      'prices.A/B.bids.0: expected a price above zero',
    ])
    expect(problems(pricesResponseSchema, { prices: { 'A/B': { asks: [[2000, 1]] } } })).toEqual([
      'prices.A/B.asks.0.0: expected a decimal string such as "1850.25", received 2000',
      'prices.A/B.asks.0.1: expected a decimal string such as "1850.25", received 1',
    ])
    expect(problems(pricesResponseSchema, { prices: { 'A/B': { bids: [], spread: '1' } } })).toEqual([
      'prices.A/B: Unrecognized key: "spread"',
    ])
  })
})

describe('maker wire schemas: blacklist', () => {
  it('accepts a list of addresses', () => {
    expect(blacklistResponseSchema.parse({ blacklist: [user.toLowerCase()] }).blacklist).toEqual([user])
  })

  it('refuses the same address twice, whatever its case', () => {
    expect(problems(blacklistResponseSchema, { blacklist: [user, user.toLowerCase()] })).toEqual([
      'blacklist: expected addresses without duplicates',
    ])
  })
})

describe('maker wire schemas: firm request', () => {
  it('accepts the document shape with either amount, as bigint', () => {
    expect(firmRequestSchema.parse(firmRequest).takerAmount).toBe(2_000_000_000n)
    const { takerAmount: _takerAmount, ...rest } = firmRequest
    expect(firmRequestSchema.parse({ ...rest, makerAmount: '1000000000000000000' }).makerAmount).toBe(10n ** 18n)
  })

  it.each([
    ['0', 'expected a positive decimal integer string below 2^256, received "0"'],
    ['-1', 'expected a positive decimal integer string, received "-1"'],
    ['1.5', 'expected a positive decimal integer string, received "1.5"'],
    ['0x10', 'expected a positive decimal integer string, received "0x10"'],
    ['1e18', 'expected a positive decimal integer string, received "1e18"'],
    [(1n << 256n).toString(), `expected a positive decimal integer string below 2^256, received "${(1n << 256n).toString()}"`],
    [5, 'expected a positive decimal integer string, received 5'],
  ])('refuses the amount %j with a readable error', (amount, message) => {
    expect(problems(firmRequestSchema, { ...firmRequest, takerAmount: amount })).toEqual([`takerAmount: ${message}`])
  })

  it('refuses both amounts and neither', () => {
    expect(problems(firmRequestSchema, { ...firmRequest, makerAmount: '1' })).toEqual([
      'makerAmount: expected exactly one of makerAmount and takerAmount',
    ])
    const { takerAmount: _takerAmount, ...neither } = firmRequest
    expect(problems(firmRequestSchema, neither)).toEqual(['makerAmount: expected exactly one of makerAmount and takerAmount'])
  })

  it('refuses the same asset on both sides, whatever its case', () => {
    expect(problems(firmRequestSchema, { ...firmRequest, takerAsset: weth.toLowerCase() })).toEqual([
      'takerAsset: expected makerAsset and takerAsset to differ',
    ])
  })

  it('refuses an unknown key, a missing address and a body that is not an object', () => {
    expect(problems(firmRequestSchema, { ...firmRequest, slippage: 1 })).toEqual([': Unrecognized key: "slippage"'])
    const { userAddress: _userAddress, ...noUser } = firmRequest
    expect(problems(firmRequestSchema, noUser)).toEqual(['userAddress: expected an address (0x + 40 hex digits), received nothing'])
    expect(problems(firmRequestSchema, [])).toEqual([': Invalid input: expected object, received array'])
  })
})

describe('maker wire schemas: firm order and stream', () => {
  const order = {
    nonceAndMeta: ((123n << 160n) + BigInt(user)).toString(),
    expiry: 1_700_000_180,
    makerAsset: weth.toLowerCase(),
    takerAsset: usdc,
    maker: '0x70997970c51812dc3a010c7d01b50e0d17dc79c8',
    taker: router,
    makerAmount: '999500249875062468',
    takerAmount: '2000000000',
    signature: `0x${'ab'.repeat(65)}`,
  }

  it('round-trips an order through the wire form', () => {
    const parsed = firmOrderSchema.parse(order)
    expect(parsed.makerAmount).toBe(999_500_249_875_062_468n)
    expect(firmOrderToWire(parsed)).toEqual({ ...order, takerAsset: usdc.toLowerCase() })
  })

  it('refuses an uppercase signature and a fractional expiry', () => {
    expect(problems(firmOrderSchema, { ...order, signature: `0x${'AB'.repeat(65)}`, expiry: 1.5 })).toEqual([
      'expiry: expected unix seconds, received 1.5',
      `signature: expected 0x followed by lowercase hex bytes, received "${`0x${'AB'.repeat(65)}`.slice(0, 80)}"`,
    ])
  })

  it('accepts a firm answer without order (blacklisted user) carrying a message', () => {
    expect(firmResponseSchema.parse({ message: 'user is blacklisted' })).toEqual({ message: 'user is blacklisted' })
  })

  it('accepts a stream message with any payload but refuses an order', () => {
    expect(makerStreamMessageSchema.parse({ prices: { 'WETH/USDC': {} }, message: 'off' })).toEqual({
      prices: { 'WETH/USDC': {} },
      message: 'off',
    })
    expect(problems(makerStreamMessageSchema, { order })).toEqual([': Unrecognized key: "order"'])
  })
})
