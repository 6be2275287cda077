import { describe, expect, it } from 'vitest'
import type { Quote } from '../../src/feed/quote.js'
import { deepFreeze, freezeCopy, frozenQuote } from '../../src/strategy/frozen-copy.js'

const quote = (): Quote => ({
  request: {
    source: 'market',
    chainId: 1,
    srcToken: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48',
    destToken: '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2',
    amount: 10n,
    side: 'SELL',
  },
  key: 'k',
  srcAmount: 10n,
  destAmount: 4n,
  answer: { source: 'delta', price: { nested: { deep: [1, 2] } } as never },
  requestedAt: 1,
  receivedAt: 2,
})

describe('frozenQuote', () => {
  it('gives a view no strategy can change, down to the answer it reads', () => {
    const view = frozenQuote(quote()) as unknown as Quote
    expect(view.destAmount).toBe(4n)
    expect(() => Object.assign(view, { destAmount: 5n })).toThrow(TypeError)
    expect(() => Object.assign(view.request, { amount: 1n })).toThrow(TypeError)
    const price = (view.answer as unknown as { price: { nested: { deep: number[] } } }).price
    expect(price.nested.deep).toEqual([1, 2])
    expect(() => price.nested.deep.push(3)).toThrow(TypeError)
  })

  it('is passed through freezeCopy as it is, so every strategy shares one view', () => {
    const view = frozenQuote(quote())
    expect(freezeCopy(view)).toBe(view)
  })
})

describe('freezeCopy', () => {
  it('copies a value that is not deeply frozen, and passes one deepFreeze froze', () => {
    const value = { a: { b: 1 } }
    const copy = freezeCopy(value)
    expect(copy).not.toBe(value)
    expect(Object.isFrozen(copy.a)).toBe(true)
    expect(Object.isFrozen(value)).toBe(false)
    const frozen = deepFreeze({ a: { b: 1 } })
    expect(freezeCopy(frozen)).toBe(frozen)
  })
})
