import fc from 'fast-check'
import type { Address } from 'viem'
import { describe, expect, it } from 'vitest'
import type { MakerBalance, MakerFirmQuote, ReferencePrice } from '../../src/maker/maker-strategy.js'
import { checkMakerOffer } from '../../src/maker/runtime/check-maker-offer.js'
import { comparePrices, exactPrice, priceFromDecimal, shiftPrice } from '../../src/maker/runtime/exact-price.js'
import { createSafeMakerStrategy, type MakerQuoteInput } from '../../src/maker/runtime/safe-maker-strategy.js'
import { priceGridSchema } from '../../src/protocol/maker-wire.js'
import { fillFromGrid, isGridCrossed, type PriceGrid, parseDecimal } from '../../src/protocol/price-grid.js'
import { type BuildGridParameters, buildGrid } from '../../strategies/market-maker/build-grid.js'
import marketMaker from '../../strategies/market-maker/index.js'
import { inventorySkewBps } from '../../strategies/market-maker/inventory-skew.js'
import { marketMakerConfigSchema } from '../../strategies/market-maker/market-maker-config.js'

const weth: Address = '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2'
const usdc: Address = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48'
const wbtc: Address = '0x2260FAC5E5542a773Aa44fBCfeDf7C193bc2C599'

// ---------------------------------------------------------------------------------------------------------------
// The grid and the skew: pure functions, property-tested.

const gridParameters: fc.Arbitrary<BuildGridParameters> = fc
  .record({
    numerator: fc.bigInt({ min: 1n, max: 10n ** 24n }),
    denominator: fc.bigInt({ min: 1n, max: 10n ** 12n }),
    levels: fc.integer({ min: 1, max: 12 }),
    spreadBps: fc.integer({ min: 1, max: 2_000 }),
    stepBps: fc.integer({ min: 0, max: 500 }),
    skewBps: fc.integer({ min: -500, max: 500 }),
    size: fc.bigInt({ min: 1n, max: 10n ** 22n }),
    sizeGrowthBps: fc.integer({ min: 0, max: 20_000 }),
    baseAvailable: fc.bigInt({ min: 0n, max: 10n ** 24n }),
    quoteAvailable: fc.bigInt({ min: 0n, max: 10n ** 15n }),
    baseDecimals: fc.integer({ min: 0, max: 18 }),
    quoteDecimals: fc.integer({ min: 0, max: 18 }),
    priceDecimals: fc.integer({ min: 0, max: 12 }),
  })
  .filter((p) => p.spreadBps + (p.levels - 1) * p.stepBps < 10_000)
  .map(({ numerator, denominator, ...rest }) => ({ ...rest, mid: exactPrice(numerator, denominator) }))

const ratioOf = (text: string) => {
  const { n, d } = parseDecimal(text)
  return exactPrice(n, d)
}
const rawOf = (text: string, decimals: number) => {
  const { n, d } = parseDecimal(text)
  return (n * 10n ** BigInt(decimals)) / d
}

describe('market-maker grid', () => {
  it('is never crossed and is a valid grid of the maker document', () => {
    fc.assert(
      fc.property(gridParameters, (parameters) => {
        const { grid } = buildGrid(parameters)
        expect(isGridCrossed(grid)).toBe(false)
        expect(priceGridSchema.safeParse(grid).success).toBe(true)
      }),
    )
  })

  it('puts the best level first: bids strictly falling, asks strictly rising, every amount above zero', () => {
    fc.assert(
      fc.property(gridParameters, (parameters) => {
        const { grid } = buildGrid(parameters)
        const pairs = (levels: readonly (readonly [string, string])[] = []) =>
          levels.slice(1).map((level, index) => [levels[index], level] as const)
        for (const [before, after] of pairs(grid.bids)) expect(comparePrices(ratioOf(after[0]), ratioOf(before?.[0] ?? '0'))).toBe(-1)
        for (const [before, after] of pairs(grid.asks)) expect(comparePrices(ratioOf(after[0]), ratioOf(before?.[0] ?? '0'))).toBe(1)
        for (const [, amount] of [...(grid.bids ?? []), ...(grid.asks ?? [])]) expect(/[1-9]/.test(amount)).toBe(true)
      }),
    )
  })

  it('never offers more than the wallet can pay: asks within the base, bids within the quote at their prices', () => {
    fc.assert(
      fc.property(gridParameters, (parameters) => {
        const { grid, baseUsed, quoteUsed } = buildGrid(parameters)
        const asked = (grid.asks ?? []).reduce((sum, [, amount]) => sum + rawOf(amount, parameters.baseDecimals), 0n)
        expect(asked).toBe(baseUsed)
        expect(asked).toBeLessThanOrEqual(parameters.baseAvailable)
        expect(quoteUsed).toBeLessThanOrEqual(parameters.quoteAvailable)
        // A user selling the whole bid depth receives at most the quote available (what the service would compute).
        const bidDepth = (grid.bids ?? []).reduce((sum, [, amount]) => sum + rawOf(amount, parameters.baseDecimals), 0n)
        if (bidDepth > 0n) {
          const fill = fillFromGrid(grid, {
            src: 'base',
            side: 'SELL',
            amount: bidDepth,
            baseDecimals: parameters.baseDecimals,
            quoteDecimals: parameters.quoteDecimals,
          })
          expect(fill.ok && fill.amount <= parameters.quoteAvailable).toBe(true)
        }
      }),
    )
  })

  it('rounds outward: every bid at or under mid − spread, every ask at or over mid + spread', () => {
    fc.assert(
      fc.property(gridParameters, (parameters) => {
        const { grid } = buildGrid(parameters)
        const mid = shiftPrice(parameters.mid, BigInt(parameters.skewBps))
        const spread = BigInt(parameters.spreadBps)
        for (const [price] of grid.bids ?? []) expect(comparePrices(ratioOf(price), shiftPrice(mid, -spread))).toBeLessThanOrEqual(0)
        for (const [price] of grid.asks ?? []) expect(comparePrices(ratioOf(price), shiftPrice(mid, spread))).toBeGreaterThanOrEqual(0)
      }),
    )
  })

  it('grows each level by sizeGrowthBps while the wallet holds enough', () => {
    const { grid } = buildGrid({
      mid: priceFromDecimal('2000'),
      skewBps: 0,
      levels: 3,
      spreadBps: 10,
      stepBps: 10,
      size: 10n ** 18n,
      sizeGrowthBps: 5_000,
      baseAvailable: 10n ** 20n,
      quoteAvailable: 10n ** 12n,
      baseDecimals: 18,
      quoteDecimals: 6,
      priceDecimals: 2,
    })
    expect(grid).toEqual({
      bids: [
        ['1998', '1'],
        ['1996', '1.5'],
        ['1994', '2.25'],
      ],
      asks: [
        ['2002', '1'],
        ['2004', '1.5'],
        ['2006', '2.25'],
      ],
    })
  })
})

describe('market-maker inventory skew', () => {
  const skewInput = fc.record({
    baseBalance: fc.bigInt({ min: 0n, max: 10n ** 24n }),
    quoteBalance: fc.bigInt({ min: 0n, max: 10n ** 15n }),
    price: fc.integer({ min: 1, max: 100_000 }),
    targetBaseShareBps: fc.integer({ min: 1, max: 9_999 }),
    maxSkewBps: fc.integer({ min: 0, max: 5_000 }),
  })
  const skewOf = (input: { baseBalance: bigint; quoteBalance: bigint; price: number; targetBaseShareBps: number; maxSkewBps: number }) =>
    inventorySkewBps({ ...input, mid: exactPrice(BigInt(input.price), 1n), baseDecimals: 18, quoteDecimals: 6 })

  it('stays within ±maxSkewBps and moves the mid down when long base, up when short', () => {
    fc.assert(
      fc.property(skewInput, (input) => {
        const skew = skewOf(input)
        expect(Math.abs(skew)).toBeLessThanOrEqual(input.maxSkewBps)
        // Base value in raw quote units against the target share of the total.
        const baseValue = (input.baseBalance * BigInt(input.price) * 10n ** 6n) / 10n ** 18n
        const total = baseValue + input.quoteBalance
        const shareAboveTarget = baseValue * 10_000n - BigInt(input.targetBaseShareBps) * total
        if (shareAboveTarget > 10n ** 6n * 10_000n) expect(skew).toBeLessThanOrEqual(0)
        if (shareAboveTarget < -(10n ** 6n * 10_000n)) expect(skew).toBeGreaterThanOrEqual(0)
      }),
    )
  })

  it('never moves the mid up as the wallet holds more base', () => {
    fc.assert(
      fc.property(skewInput, fc.bigInt({ min: 0n, max: 10n ** 24n }), (input, more) => {
        expect(skewOf({ ...input, baseBalance: input.baseBalance + more })).toBeLessThanOrEqual(skewOf(input))
      }),
    )
  })

  it('gives the full skew at the extremes', () => {
    const common = { price: 2_000, targetBaseShareBps: 5_000, maxSkewBps: 40 }
    expect(skewOf({ ...common, baseBalance: 10n ** 18n, quoteBalance: 0n })).toBe(-40)
    expect(skewOf({ ...common, baseBalance: 0n, quoteBalance: 10n ** 9n })).toBe(40)
    expect(skewOf({ ...common, baseBalance: 10n ** 18n, quoteBalance: 2_000n * 10n ** 6n })).toBe(0)
  })
})

// ---------------------------------------------------------------------------------------------------------------
// The strategy as the runtime runs it (createSafeMakerStrategy), its offer checked by the runtime's validator.

const now = 1_800_000_000_000
const baseConfig = {
  maxReferenceAgeSeconds: 30,
  chains: {
    '1': {
      tokens: { WETH: { address: weth, decimals: 18 }, USDC: { address: usdc, decimals: 6 }, WBTC: { address: wbtc, decimals: 8 } },
      pairs: {
        'WETH/USDC': {
          base: 'WETH',
          quote: 'USDC',
          reference: { source: 'market', size: '1' },
          levels: 2,
          spreadBps: 10,
          size: '1',
          maxSkewBps: 50,
        },
        'WBTC/USDC': { base: 'WBTC', quote: 'USDC', reference: { source: 'fixed', price: '60000' }, spreadBps: 10, size: '0.1' },
      },
      retire: ['WBTC/USDC'],
    },
  },
}

function reference(price: string, at: number): ReferencePrice {
  return {
    id: '1:WETH/USDC',
    chainId: 1,
    base: weth,
    quote: usdc,
    bid: undefined,
    ask: undefined,
    mid: priceFromDecimal(price),
    at,
    lastError: undefined,
  }
}

function balance(token: Address, amount: bigint): MakerBalance {
  return { chainId: 1, token, balance: amount, reserved: 0n, available: amount, at: now }
}

function input(overrides: Partial<MakerQuoteInput> = {}): MakerQuoteInput {
  return {
    now,
    references: { '1:WETH/USDC': reference('2000', now - 1_000) },
    balances: [balance(weth, 50n * 10n ** 18n), balance(usdc, 100_000n * 10n ** 6n), balance(wbtc, 10n ** 8n)],
    firmQuotes: [],
    ...overrides,
  }
}

function quoteWith(config: unknown, quoteInput: MakerQuoteInput) {
  const strategy = createSafeMakerStrategy(marketMaker, { config })
  const outcome = strategy.quote(quoteInput)
  if (!outcome.ok) throw outcome.error
  const decimals = new Map([weth, usdc, wbtc].map((token, index) => [token.toLowerCase(), [18, 6, 8][index]]))
  const checked = checkMakerOffer(outcome.output, { chainIds: [1], decimalsOf: (_chainId, token) => decimals.get(token.toLowerCase()) })
  if (!checked.ok) throw new Error(checked.reason)
  const chain = checked.chains.get(1)
  if (!chain) throw new Error('no offer for chain 1')
  return { strategy, chain }
}

describe('market-maker strategy', () => {
  it('asks for a market reference of each active pair and the balances of every token', () => {
    const strategy = createSafeMakerStrategy(marketMaker, { config: baseConfig })
    expect(strategy.references).toEqual([
      { id: '1:WETH/USDC', chainId: 1, base: weth, quote: usdc, source: 'market', size: 10n ** 18n, sides: 'both' },
    ])
    expect(strategy.balances.map((entry) => entry.token)).toEqual([weth, usdc, wbtc])
  })

  it('serves a checked offer: tokens, both pairs, a grid for the active one and {} for the retired one', () => {
    const { chain } = quoteWith(baseConfig, input())
    if (!('update' in chain)) throw new Error(`off: ${chain.off}`)
    expect(Object.keys(chain.update.tokens)).toEqual(['WETH', 'USDC', 'WBTC'])
    expect(chain.update.tokens.USDC).toMatchObject({ symbol: 'USDC', address: usdc, decimals: 6, type: 'ERC20' })
    expect(Object.keys(chain.update.pairs)).toEqual(['WETH/USDC', 'WBTC/USDC'])
    expect(chain.update.prices['WBTC/USDC']).toEqual({})
    expect(chain.update.prices['WETH/USDC']?.bids).toHaveLength(2)
  })

  it('lowers its mid when the wallet is long base and raises it when short', () => {
    const midOf = (grid: PriceGrid | undefined) => {
      const bid = ratioOf(grid?.bids?.[0]?.[0] ?? '0')
      const ask = ratioOf(grid?.asks?.[0]?.[0] ?? '0')
      return exactPrice(bid.numerator * ask.denominator + ask.numerator * bid.denominator, 2n * bid.denominator * ask.denominator)
    }
    const gridWith = (wethHeld: bigint) => {
      const { chain } = quoteWith(
        baseConfig,
        input({ balances: [balance(weth, wethHeld), balance(usdc, 100_000n * 10n ** 6n), balance(wbtc, 0n)] }),
      )
      if (!('update' in chain)) throw new Error(`off: ${chain.off}`)
      return chain.update.prices['WETH/USDC']
    }
    const long = midOf(gridWith(500n * 10n ** 18n))
    const balanced = midOf(gridWith(50n * 10n ** 18n))
    const short = midOf(gridWith(10n ** 18n))
    expect(comparePrices(long, priceFromDecimal('2000'))).toBe(-1)
    expect(comparePrices(short, priceFromDecimal('2000'))).toBe(1)
    expect(comparePrices(long, balanced)).toBe(-1)
    expect(comparePrices(balanced, short)).toBe(-1)
  })

  it('switches off when the reference is older than maxReferenceAgeSeconds', () => {
    const { chain } = quoteWith(
      baseConfig,
      input({ references: { '1:WETH/USDC': { ...reference('2000', now - 31_000), lastError: 'HTTP 503' } } }),
    )
    expect(chain).toEqual({ off: 'reference price of WETH/USDC is stale: older than 30 s; last error: HTTP 503' })
  })

  it('switches off while a balance has not been read', () => {
    const { chain } = quoteWith(baseConfig, input({ balances: [balance(weth, 10n ** 18n)] }))
    expect(chain).toEqual({ off: 'balance of USDC on chain 1 not read yet' })
  })

  it('switches off when its inventory falls below a floor', () => {
    const config = structuredClone(baseConfig)
    Object.assign(config.chains['1'].tokens.USDC, { minBalance: '200000' })
    const { chain } = quoteWith(config, input())
    expect(chain).toEqual({ off: 'risk limit: inventory of USDC on chain 1 is 100000, below the floor 200000' })
  })

  it('switches off once firm quotes of a pair reach its notional limit over the window', () => {
    const config = structuredClone(baseConfig)
    Object.assign(config.chains['1'].pairs['WETH/USDC'], { maxFirmNotional: { amount: '5000', windowSeconds: 600 } })
    const firm = (overrides: Partial<MakerFirmQuote>): MakerFirmQuote => ({
      chainId: 1,
      makerAsset: weth,
      takerAsset: usdc,
      makerAmount: 10n ** 18n,
      takerAmount: 2_000n * 10n ** 6n,
      quotedAt: now - 60_000,
      status: 'open',
      filledMakerAmount: 0n,
      filledTakerAmount: 0n,
      ...overrides,
    })
    expect(createSafeMakerStrategy(marketMaker, { config }).firmWindowSeconds).toBe(600)
    // 2,000 open + 2,000 filled + an expired and an old one that do not count: under 5,000.
    const under = [
      firm({}),
      firm({ status: 'filled', filledMakerAmount: 10n ** 18n, filledTakerAmount: 2_000n * 10n ** 6n }),
      firm({ status: 'expired' }),
      firm({ quotedAt: now - 601_000 }),
    ]
    expect('update' in quoteWith(config, input({ firmQuotes: under })).chain).toBe(true)
    // The maker selling USDC for WETH counts its USDC side: 1,000 more reaches 5,000.
    const reached = [...under, firm({ makerAsset: usdc, takerAsset: weth, makerAmount: 1_000n * 10n ** 6n, takerAmount: 5n * 10n ** 17n })]
    expect(quoteWith(config, input({ firmQuotes: reached })).chain).toEqual({
      off: 'risk limit: firm quotes of WETH/USDC over the last 600 s reach 5000 USDC, the limit is 5000',
    })
  })

  it('refuses a config whose pair names an unknown token or retires an unknown pair, naming the path', () => {
    const config = structuredClone(baseConfig) as { chains: Record<string, { pairs: Record<string, { base: string }>; retire: string[] }> }
    const chain = config.chains['1']
    if (!chain?.pairs['WETH/USDC']) throw new Error('fixture')
    chain.pairs['WETH/USDC'].base = 'ETH'
    chain.retire = ['DAI/USDC']
    const parsed = marketMakerConfigSchema.safeParse(config)
    expect(parsed.success).toBe(false)
    expect(parsed.error?.issues.map((issue) => issue.path.join('.'))).toEqual(['chains.1.pairs.WETH/USDC.base', 'chains.1.retire.0'])
  })
})
