import { describe, expect, it } from 'vitest'
import { ModeUnavailableError } from '../../src/chain/spender.js'
import { chooseMode } from '../../src/exec/mode/choose-mode.js'
import type { DeltaQuoteFields, MarketRouteFields } from '../../src/exec/mode/net-amounts.js'

// SELL 1 WETH for USDC (6 decimals). Delta's route is net of agents' gas; Market's gas is paid on top.
function deltaQuote(srcAmount: bigint, destAmount: bigint, feePercent = 0): { price: DeltaQuoteFields } {
  return {
    price: {
      route: { origin: { input: { amount: srcAmount } }, destination: { output: { amount: destAmount } } },
      partner: { feePercent },
    },
  }
}

function marketRoute(srcAmount: bigint, destAmount: bigint, overrides: Partial<MarketRouteFields> = {}): { route: MarketRouteFields } {
  return {
    route: {
      srcAmount,
      destAmount,
      gasCost: 150_000n,
      gasCostUSD: '0',
      srcUSD: '3000',
      destUSD: '3000',
      partnerFee: 0,
      ...overrides,
    },
  }
}

const oneEth = 10n ** 18n
const preferDelta = { mode: 'delta', marginBps: 10 } as const

describe('chooseMode', () => {
  it('chooses Delta when its net output is higher (SELL)', () => {
    const choice = chooseMode({
      side: 'SELL',
      delta: deltaQuote(oneEth, 3_000_000_000n),
      market: marketRoute(oneEth, 2_990_000_000n),
      preference: preferDelta,
    })
    expect(choice).toMatchObject({ mode: 'delta', reason: 'delta-better', marketAdvantageBps: -33.33 })
    expect(choice.delta).toMatchObject({ status: 'quoted', net: 3_000_000_000n })
  })

  it('chooses Market when it is better by more than the margin after its gas and partner fee', () => {
    // Market gross 3 020 USDC, gas 6 USD = 6 USDC, partner fee 0.1 % = 3.02 USDC: net 3 010.98 USDC, +36.6 bps.
    const market = marketRoute(oneEth, 3_020_000_000n, { gasCostUSD: '6', destUSD: '3020', partnerFee: 0.1 })
    const choice = chooseMode({ side: 'SELL', delta: deltaQuote(oneEth, 3_000_000_000n), market, preference: preferDelta })
    expect(choice).toMatchObject({ mode: 'market', reason: 'market-better', marketAdvantageBps: 36.6 })
    expect(choice.market).toMatchObject({ status: 'quoted', gross: 3_020_000_000n, fee: 3_020_000n, gas: 6_000_000n, net: 3_010_980_000n })
  })

  it('keeps the preferred Delta when Market is better by less than the margin', () => {
    const choice = chooseMode({
      side: 'SELL',
      delta: deltaQuote(oneEth, 3_000_000_000n),
      market: marketRoute(oneEth, 3_002_000_000n),
      preference: preferDelta,
    })
    expect(choice).toMatchObject({ mode: 'delta', reason: 'preferred-within-margin', marketAdvantageBps: 6.66 })
  })

  it("charges Delta's partner fee, which can make Market win", () => {
    const market = marketRoute(oneEth, 3_000_000_000n)
    const choice = chooseMode({
      side: 'SELL',
      delta: deltaQuote(oneEth, 3_000_000_000n, 0.5),
      market,
      preference: { mode: 'delta', marginBps: 0 },
    })
    expect(choice).toMatchObject({ mode: 'market', delta: { fee: 15_000_000n, net: 2_985_000_000n } })
  })

  it('for BUY, chooses the mode asking for less input', () => {
    const buy = (deltaSrc: bigint, marketSrc: bigint) =>
      chooseMode({
        side: 'BUY',
        delta: deltaQuote(deltaSrc, 3_000_000_000n),
        market: marketRoute(marketSrc, 3_000_000_000n),
        preference: { mode: 'delta', marginBps: 0 },
      })
    expect(buy(oneEth, (oneEth * 99n) / 100n)).toMatchObject({ mode: 'market', reason: 'market-better' })
    expect(buy((oneEth * 99n) / 100n, oneEth)).toMatchObject({ mode: 'delta', reason: 'delta-better' })
  })

  it("converts Market's gas with the executor's gas price and native USD price when given", () => {
    // 150 000 gas at 20 gwei = 0.003 ETH = 9 USD at 3 000 USD, i.e. 9 USDC off the output.
    const choice = chooseMode({
      side: 'SELL',
      market: marketRoute(oneEth, 3_000_000_000n, { gasCostUSD: '1' }),
      preference: preferDelta,
      gasPriceWei: 20_000_000_000n,
      nativeUsd: 3000,
    })
    expect(choice.market).toMatchObject({ gas: 9_000_000n, net: 2_991_000_000n })
  })

  it('chooses Market when Delta is not available on the chain', () => {
    const unavailable = new ModeUnavailableError({
      mode: 'delta',
      chainId: 100,
      role: 'deltaV2',
      chainKnown: true,
      chainsWithMode: [1, 8453],
    })
    const choice = chooseMode({ side: 'SELL', delta: { error: unavailable }, market: marketRoute(oneEth, 1n), preference: preferDelta })
    expect(choice).toMatchObject({
      mode: 'market',
      reason: 'only-market',
      delta: { status: 'unavailable', why: 'Delta is not available on chain 100' },
    })
    expect(chooseMode({ side: 'SELL', market: marketRoute(oneEth, 1n), preference: preferDelta })).toMatchObject({
      mode: 'market',
      delta: { status: 'unavailable' },
    })
  })

  it('chooses Market when pricing refused Delta, keeping the error', () => {
    const choice = chooseMode({
      side: 'SELL',
      delta: { error: new Error('No route') },
      market: marketRoute(oneEth, 1n),
      preference: preferDelta,
    })
    expect(choice).toMatchObject({ mode: 'market', reason: 'only-market', delta: { status: 'refused', why: 'Error: No route' } })
  })

  it('chooses Delta when Market is unavailable (crosschain) or refused', () => {
    expect(chooseMode({ side: 'SELL', delta: deltaQuote(oneEth, 1n), preference: { mode: 'market', marginBps: 0 } })).toMatchObject({
      mode: 'delta',
      reason: 'only-delta',
      market: { status: 'unavailable' },
    })
    const impact = marketRoute(oneEth, 5n, { maxImpactReached: true })
    expect(chooseMode({ side: 'SELL', delta: deltaQuote(oneEth, 1n), market: impact, preference: preferDelta })).toMatchObject({
      mode: 'delta',
      market: { status: 'refused' },
    })
  })

  it('has no mode when neither is quoted', () => {
    expect(chooseMode({ side: 'SELL', delta: { error: new Error('No route') }, preference: preferDelta })).toMatchObject({
      mode: undefined,
      reason: 'none-available',
    })
  })

  it("obeys the intent's override even when the other mode is better", () => {
    const choice = chooseMode({
      side: 'SELL',
      delta: deltaQuote(oneEth, 2_000_000_000n),
      market: marketRoute(oneEth, 3_000_000_000n),
      preference: preferDelta,
      override: 'delta',
    })
    expect(choice).toMatchObject({ mode: 'delta', reason: 'override', override: 'delta', marketAdvantageBps: 5000 })
  })

  it('does not fall back to the other mode when the overridden mode has no quote', () => {
    const choice = chooseMode({ side: 'SELL', delta: deltaQuote(oneEth, 1n), preference: preferDelta, override: 'market' })
    expect(choice).toMatchObject({ mode: undefined, reason: 'override-unavailable' })
    expect(choice.explanation).toContain('Market')
  })

  it('returns plain data the journal can store', () => {
    const choice = chooseMode({ side: 'SELL', delta: deltaQuote(oneEth, 3n), market: marketRoute(oneEth, 4n), preference: preferDelta })
    expect(structuredClone(choice)).toEqual(choice)
  })
})
