import type { Address } from 'viem'
import { afterAll, describe, expect, it } from 'vitest'
import { parseConfigDocument } from '../../../src/config/load-config.js'
import { deltaflowConfigSchema } from '../../../src/config/schema.js'
import type { Quote } from '../../../src/feed/quote.js'
import { openJournal } from '../../../src/journal/journal.js'
import { createEquitySeries } from '../../../src/runtime/console/equity-series.js'
import { tokenViewOf } from '../../../src/runtime/console/token-view.js'
import { createValuation } from '../../../src/runtime/console/valuation.js'
import { createLatestPrices } from '../../../src/runtime/latest-prices.js'
import { createTokenLabels } from '../../../src/runtime/token-labels.js'
import { ManualClock } from '../../../src/time/clock.js'
import { createTempDirectory } from '../../helpers/temp-directory.js'

const directory = createTempDirectory('deltaflow-valuation-')
afterAll(() => directory.cleanup())

const usdc = { chainId: 1, token: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48' as Address }
const weth = { chainId: 1, token: '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2' as Address }

/** A quote selling `srcAmount` of `src` for `destAmount` of `dest`, received at `at`. */
function quoteOf(src: typeof usdc, dest: typeof usdc, srcAmount: bigint, destAmount: bigint, at: number): Quote {
  return {
    request: { source: 'delta', chainId: src.chainId, srcToken: src.token, destToken: dest.token, amount: srcAmount, side: 'SELL' },
    key: `${at}`,
    srcAmount,
    destAmount,
    answer: { source: 'delta', price: {} as never },
    requestedAt: at - 10,
    receivedAt: at,
  }
}

describe('createLatestPrices', () => {
  it('values a token at the latest quote between it and the valuation token, read either way', () => {
    const prices = createLatestPrices()
    expect(prices.value(weth, 10n ** 18n, usdc)).toBeUndefined()
    // 1000 USDC bought 0.5 WETH: 1 WETH is worth 2000 USDC.
    prices.observe(quoteOf(usdc, weth, 1_000_000_000n, 5n * 10n ** 17n, 1_000))
    expect(prices.value(weth, 10n ** 18n, usdc)).toEqual({ value: 2_000_000_000n, pricedAt: 1_000 })
    expect(prices.value(weth, -(10n ** 18n), usdc)).toEqual({ value: -2_000_000_000n, pricedAt: 1_000 })
    // A newer quote the other way wins; an older one is ignored.
    prices.observe(quoteOf(weth, usdc, 10n ** 18n, 2_100_000_000n, 2_000))
    prices.observe(quoteOf(usdc, weth, 1_000_000_000n, 10n ** 18n, 1_500))
    expect(prices.value(weth, 10n ** 18n, usdc)).toEqual({ value: 2_100_000_000n, pricedAt: 2_000 })
    expect(prices.value({ ...usdc, token: usdc.token.toLowerCase() as Address }, 5n, usdc)).toEqual({ value: 5n, pricedAt: null })
  })
})

describe('createEquitySeries', () => {
  it('keeps its points in time order and halves them when full, keeping the latest', () => {
    const series = createEquitySeries(8)
    for (let at = 1; at <= 9; at++) series.add({ at, raw: BigInt(at), pricedAt: at, unpriced: [] })
    series.add({ at: 3, raw: 0n, pricedAt: 3, unpriced: [] })
    expect(series.points().map((point) => point.at)).toEqual([1, 3, 5, 7, 9])
  })
})

describe('tokenViewOf', () => {
  it('names a token whose symbol cannot be read by its short address, its amounts in raw units only', async () => {
    const labels = createTokenLabels(new Map())
    expect(await labels.labelOf(1, weth.token)).toBeUndefined()
    const view = tokenViewOf(labels)
    expect(view.labelOf(1, weth.token)).toEqual({ chainId: 1, address: weth.token, symbol: null, decimals: null, name: '0xC02a…6Cc2' })
    expect(view.unitsOf(1, weth.token, 5n)).toBeNull()
  })
})

describe('createValuation', () => {
  const journal = openJournal({ file: directory.path('valuation.sqlite'), clock: new ManualClock(0) })
  afterAll(() => journal.close())
  const sources = (valuation: Record<string, string>) => ({
    config: deltaflowConfigSchema.parse({ ops: { valuation } }),
    labels: createTokenLabels(new Map()),
    prices: createLatestPrices(),
    chains: new Map(),
    strategies: [],
    journal,
  })

  it('says why there is no valuation token when none is set and no strategy deals in a stablecoin', async () => {
    const chosen = await createValuation(sources({})).token()
    expect(chosen).toEqual({ reason: expect.stringContaining('set ops.valuation.token ("chainId:address")') })
    expect(JSON.stringify(chosen)).toContain('USDC, USDT, DAI')
  })

  it('values amounts in the configured token and names the tokens it has no price for', async () => {
    const valuation = createValuation(sources({ token: `1:${usdc.token}` }))
    const chosen = await valuation.token()
    expect(chosen).toEqual({ token: { chainId: 1, token: usdc.token } })
    const valued = valuation.value(
      [
        { ...usdc, amount: -5n },
        { ...weth, amount: 7n },
      ],
      usdc,
    )
    expect(valued).toEqual({ raw: -5n, pricedAt: null, unpriced: [{ chainId: 1, token: weth.token }] })
    expect(valuation.unpricedReason(valued, usdc)).toBe(
      'no price seen yet between 0xC02a…6Cc2 and 0xA0b8…eB48 (the bot values tokens at the quotes its strategies subscribe to)',
    )
  })
})

describe('ops.valuation.token', () => {
  it('refuses a token that is not "chainId:address", naming the setting, its line and what was expected', () => {
    const text = ['mode: paper', 'ops:', '  valuation:', '    token: WETH'].join('\n')
    expect(() => parseConfigDocument(text, 'bot.yaml', { env: {} })).toThrow(
      /bot\.yaml:4:\d+: ops\.valuation\.token: expected "chainId:address".*received "WETH"/,
    )
  })
})
