import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createIntent } from '../../src/domain/intents/create-intent.js'
import { intentId } from '../../src/domain/intents/intent-id.js'
import { InvalidIntentError, parseIntent, parseIntentContent } from '../../src/domain/intents/parse-intent.js'
import { ManualClock } from '../../src/time/clock.js'

const content = {
  strategy: 'rebalance',
  kind: 'swap',
  chainId: 1,
  srcToken: '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48',
  destToken: '0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2',
  amount: '1000000',
  side: 'SELL',
  maxSlippageBps: 50,
  maxPriceImpactPercent: 2,
}

const idOf = (input: unknown, key = 'day-1') => intentId({ content: parseIntentContent(input), key })

describe('intentId', () => {
  it('is the same value on every run (a restart re-derives it)', () => {
    expect(idOf(content)).toBe(idOf(structuredClone(content)))
    expect(idOf(content)).toMatch(/^[0-9a-f]{32}$/)
    // Pinned (sha256sum of the documented preimage): a format change would change every journalled id.
    expect(idOf(content)).toBe('66a961a9913a670fea61ce498bfa3269')
  })

  it('does not depend on key order, address case or how the amount was written', () => {
    const reordered = Object.fromEntries(Object.entries(content).reverse())
    const variant = { ...reordered, amount: 1_000_000n, srcToken: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48' }
    expect(idOf(variant)).toBe(idOf(content))
  })

  it('differs when the strategy key differs', () => {
    expect(idOf(content, 'day-2')).not.toBe(idOf(content, 'day-1'))
  })

  it('differs when any field of the content differs', () => {
    const changes = fc.oneof(
      fc
        .bigInt({ min: 1n, max: 10n ** 30n })
        .filter((amount) => amount !== 1_000_000n)
        .map((amount) => ({ amount })),
      fc
        .integer({ min: 0, max: 10_000 })
        .filter((bps) => bps !== 50)
        .map((maxSlippageBps) => ({ maxSlippageBps })),
      fc.constantFrom(
        { side: 'BUY' },
        { mode: 'delta' },
        { mode: 'market' },
        { chainId: 8453 },
        { strategy: 'other' },
        { maxPriceImpactPercent: 3 },
      ),
    )
    fc.assert(fc.property(changes, (change) => idOf({ ...content, ...change }) !== idOf(content)))
  })
})

describe('createIntent', () => {
  it('stamps the clock time and an id that ignores the time', () => {
    const clock = new ManualClock(1_700_000_000_000)
    const first = createIntent({ content, key: 'day-1', clock })
    clock.advance(60_000)
    const again = createIntent({ content, key: 'day-1', clock })
    expect(first.createdAt).toBe(1_700_000_000_000)
    expect(again.createdAt).toBe(1_700_000_060_000)
    expect(again.id).toBe(first.id)
    expect(first.id).toBe(idOf(content))
  })

  const usdc = content.srcToken
  const weth = content.destToken
  const limits = { maxSlippageBps: 30, maxPriceImpactPercent: 1 }
  const twap = { chainId: 1, srcToken: usdc, destToken: weth, numSlices: 4, intervalSeconds: 60, ...limits }
  const ofEveryKind: [string, Record<string, unknown>][] = [
    ['swap', content],
    ['swap forced to a mode', { ...content, mode: 'market', amount: 7n }],
    [
      'limit',
      { strategy: 's', kind: 'limit', chainId: 8453, srcToken: usdc, destToken: weth, srcAmount: '5', destAmount: 2n, validitySeconds: 60 },
    ],
    ['twap-sell with a price guard', { strategy: 's', kind: 'twap-sell', ...twap, totalSrcAmount: '400', minDestAmountPerSlice: '7' }],
    ['twap-buy', { strategy: 's', kind: 'twap-buy', ...twap, totalDestAmount: '400', maxSrcAmount: '900' }],
    ['crosschain', { ...content, kind: 'crosschain', destChainId: 10, beneficiary: usdc }],
    [
      'otc',
      {
        strategy: 's',
        kind: 'otc',
        chainId: 1,
        makerAsset: usdc,
        takerAsset: weth,
        makerAmount: '1',
        takerAmount: '2',
        taker: weth,
        expiry: 1_800_000_000,
      },
    ],
    ['cancel', { strategy: 's', kind: 'cancel', orderIds: ['o-1'] }],
  ]

  it.each(ofEveryKind)('gives a %s intent exactly as parseIntent reads it, keys in the schema order', (_kind, input) => {
    const intent = createIntent({ content: input, key: 'k', clock: new ManualClock(1_700_000_000_000) })
    // A copy: parseIntent hands createIntent's own intent back unchecked (below).
    const parsed = parseIntent({ ...intent })
    expect(parsed).not.toBe(intent)
    expect(intent).toStrictEqual(parsed)
    expect(Object.keys(intent)).toEqual(Object.keys(parsed))
  })

  it.each(ofEveryKind)('freezes a %s intent all the way down, and parseIntent hands that intent back as it is', (_kind, input) => {
    const intent = createIntent({ content: input, key: 'k', clock: new ManualClock(1_700_000_000_000) })
    const frozen = (value: unknown): boolean =>
      typeof value !== 'object' || value === null || (Object.isFrozen(value) && Object.values(value).every(frozen))
    expect(frozen(intent)).toBe(true)
    expect(parseIntent(intent)).toBe(intent)
    expect(() => Object.assign(intent, { strategy: 'other' })).toThrow(TypeError)
  })

  it('checks a copy of a created intent again: a field changed in the copy is refused and named', () => {
    const intent = createIntent({ content, key: 'k', clock: new ManualClock(1_700_000_000_000) })
    expect(() => parseIntent({ ...intent, maxSlippageBps: -1 })).toThrow(/maxSlippageBps/)
    expect(() => parseIntent({ ...intent, amount: 'lots' })).toThrow(InvalidIntentError)
  })

  it('refuses a clock time that is not unix milliseconds, naming createdAt', () => {
    expect(() => createIntent({ content, key: 'k', clock: new ManualClock(1.5) })).toThrow(InvalidIntentError)
    expect(() => createIntent({ content, key: 'k', clock: new ManualClock(-1) })).toThrow(/createdAt: expected unix milliseconds/)
  })
})
