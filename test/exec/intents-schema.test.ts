import { describe, expect, it } from 'vitest'
import { InvalidIntentError, parseIntent } from '../../src/domain/intents/parse-intent.js'

const usdc = '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48'
const weth = '0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2'
const header = { strategy: 'rebalance', id: 'abc', createdAt: 1_700_000_000_000 }
const trade = { chainId: 1, srcToken: usdc, destToken: weth, amount: '1000000', side: 'SELL', maxSlippageBps: 50, maxPriceImpactPercent: 2 }
const swap = { ...header, kind: 'swap', ...trade }
const crosschain = { ...header, kind: 'crosschain', ...trade }

function refusal(input: unknown): InvalidIntentError {
  try {
    parseIntent(input)
  } catch (error) {
    if (error instanceof InvalidIntentError) return error
    throw error
  }
  throw new Error('expected the intent to be refused')
}

describe('parseIntent', () => {
  it('parses a swap with amounts as bigint, checksummed addresses and mode auto by default', () => {
    const intent = parseIntent(swap)
    expect(intent).toMatchObject({ kind: 'swap', amount: 1_000_000n, mode: 'auto', srcToken: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48' })
  })

  it('accepts a bigint amount the same as its decimal string', () => {
    expect(parseIntent({ ...swap, amount: 1_000_000n })).toEqual(parseIntent(swap))
  })

  it('parses a Delta limit order with partiallyFillable and validity', () => {
    const intent = parseIntent({
      ...header,
      kind: 'limit',
      chainId: 8453,
      srcToken: usdc,
      destToken: weth,
      srcAmount: '5000000',
      destAmount: 2_000_000_000_000_000n,
      partiallyFillable: true,
      validitySeconds: 3600,
    })
    expect(intent).toMatchObject({ kind: 'limit', destAmount: 2_000_000_000_000_000n, partiallyFillable: true, validitySeconds: 3600 })
  })

  it('parses TWAP sell and buy intents with an optional price guard', () => {
    const twap = {
      ...header,
      chainId: 1,
      srcToken: usdc,
      destToken: weth,
      numSlices: 4,
      intervalSeconds: 60,
      maxSlippageBps: 30,
      maxPriceImpactPercent: 1,
    }
    expect(parseIntent({ ...twap, kind: 'twap-sell', totalSrcAmount: '400', minDestAmountPerSlice: '7' })).toMatchObject({
      minDestAmountPerSlice: 7n,
    })
    expect(parseIntent({ ...twap, kind: 'twap-buy', totalDestAmount: '400', maxSrcAmount: '900' })).toMatchObject({ maxSrcAmount: 900n })
  })

  it('parses crosschain, OTC and cancel intents', () => {
    expect(parseIntent({ ...crosschain, destChainId: 8453 })).toMatchObject({ destChainId: 8453 })
    const otc = { ...header, kind: 'otc', chainId: 1, makerAsset: usdc, takerAsset: weth, makerAmount: '10', takerAmount: '20' }
    expect(parseIntent({ ...otc, taker: `0x${'0'.repeat(40)}`, expiry: 1_800_000_000 })).toMatchObject({ makerAmount: 10n })
    expect(parseIntent({ ...header, kind: 'cancel', orderIds: ['o-1'] })).toMatchObject({ intentIds: [], orderIds: ['o-1'] })
  })

  it('refuses a fractional amount, naming the field, the strategy, what was expected and received', () => {
    const error = refusal({ ...swap, amount: '1.5' })
    expect(error.problems).toEqual([
      { field: 'amount', message: 'expected a positive raw amount (decimal integer string or bigint), received "1.5"' },
    ])
    expect(error.message).toContain('strategy "rebalance"')
  })

  it('refuses an unknown key (a misspelt limit)', () => {
    const error = refusal({ ...swap, maxSlipageBps: 10 })
    expect(error.problems.map((problem) => problem.field)).toEqual(['maxSlipageBps'])
    expect(error.message).toContain('unknown keys are refused')
  })

  it('refuses a missing limit', () => {
    const { maxPriceImpactPercent: _omitted, ...withoutImpact } = swap
    expect(refusal(withoutImpact).problems).toEqual([
      {
        field: 'maxPriceImpactPercent',
        message: 'expected a percentage above 0 and at most 100 (15 = 15 %), received nothing (the field is missing)',
      },
    ])
  })

  it('refuses an unknown kind, saying which kinds exist', () => {
    expect(refusal({ ...swap, kind: 'flash-loan' }).problems[0]?.message).toMatch(/one of swap, limit.*received "flash-loan"/)
  })

  it('refuses slippage given in percent rather than basis points range', () => {
    expect(refusal({ ...swap, maxSlippageBps: 0.5 }).problems[0]?.field).toBe('maxSlippageBps')
  })

  it('refuses a crosschain intent whose destChainId equals chainId', () => {
    const error = refusal({ ...crosschain, destChainId: 1 })
    expect(error.problems[0]).toMatchObject({ field: 'destChainId' })
    expect(error.problems[0]?.message).toContain('received 1')
  })

  it('refuses a TWAP with one slice or an interval under 60 s', () => {
    const twap = {
      ...header,
      kind: 'twap-sell',
      chainId: 1,
      srcToken: usdc,
      destToken: weth,
      totalSrcAmount: '100',
      maxSlippageBps: 30,
      maxPriceImpactPercent: 1,
    }
    const error = refusal({ ...twap, numSlices: 1, intervalSeconds: 30 })
    expect(error.problems.map((problem) => problem.field)).toEqual(['numSlices', 'intervalSeconds'])
  })

  it('refuses a TWAP total smaller than its number of slices', () => {
    const twap = { ...header, kind: 'twap-buy', chainId: 1, srcToken: usdc, destToken: weth, numSlices: 5, intervalSeconds: 60 }
    const error = refusal({ ...twap, totalDestAmount: '4', maxSrcAmount: '100', maxSlippageBps: 30, maxPriceImpactPercent: 1 })
    expect(error.problems).toEqual([{ field: 'totalDestAmount', message: expect.stringContaining('at least numSlices (5)') }])
  })

  it('refuses an OTC order whose maker asset is the native placeholder', () => {
    const otc = { ...header, kind: 'otc', chainId: 1, takerAsset: weth, makerAmount: '10', takerAmount: '20', expiry: 1_800_000_000 }
    const error = refusal({ ...otc, makerAsset: '0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE', taker: usdc })
    expect(error.problems[0]).toMatchObject({ field: 'makerAsset', message: expect.stringContaining('wrap the native asset') })
  })

  it('refuses an OTC expiry given in milliseconds', () => {
    const otc = {
      ...header,
      kind: 'otc',
      chainId: 1,
      makerAsset: usdc,
      takerAsset: weth,
      makerAmount: '10',
      takerAmount: '20',
      taker: usdc,
    }
    expect(refusal({ ...otc, expiry: 1_800_000_000_000 }).problems[0]?.field).toBe('expiry')
  })

  it('refuses a cancel naming nothing to cancel', () => {
    expect(refusal({ ...header, kind: 'cancel' }).problems[0]?.field).toBe('intentIds')
  })

  it('names an unnamed strategy and a non-object intent', () => {
    const error = refusal(42)
    expect(error.strategy).toBe('(unnamed strategy)')
    expect(error.problems).toEqual([{ field: '(intent)', message: 'expected an intent object with a kind, received 42' }])
  })
})
