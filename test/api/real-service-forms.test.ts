import { parseUnits } from 'viem'
import { describe, expect, it } from 'vitest'
import { getDeltaOrder } from '../../src/api/delta/get-delta-order.js'
import { getDeltaPrices } from '../../src/api/delta/get-delta-prices.js'
import { ApiRequestError, ApiResponseError } from '../../src/api/errors.js'
import { type GetQuoteParameters, getQuote } from '../../src/api/get-quote.js'
import { postOtcOrder } from '../../src/api/otc/post-otc-order.js'
import { chooseMode } from '../../src/exec/mode/choose-mode.js'
import { quoteTrade, type TradeRequest } from '../../src/exec/quote-trade.js'
import { approveDelta, deltaWallet, mustPlaceDeltaOrder } from '../helpers/delta.js'
import { sandboxToken, useSandbox } from '../helpers/sandbox.js'
import { sandboxClient } from './delta-flow.js'
import { answeringClient, fixtureJson } from './recorded-answer.js'

// The client reads each answer in the form the real service sends it (as the official SDK sees it) and in the form
// the API document shows, and turns a Delta refusal or a Market fallback into typed results.

const chainId = 1
/** 0.01 USDC: far below the gas an agent spends to settle a Delta order. */
const dustUsdc = 10_000n
const gasCostBody = { errorType: 'GasCostExceedsTradeAmount', details: 'Gas cost exceeds trade amount' }

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => new Error('expected a rejection'),
    (reason: unknown) => reason,
  )
}

describe('answers of the real service, as the client reads them', () => {
  const sandbox = useSandbox({ chainIds: [chainId] })
  const api = () => sandboxClient(sandbox())
  const usdc = () => sandboxToken(sandbox(), chainId, 'USDC')
  const weth = () => sandboxToken(sandbox(), chainId, 'WETH')
  const sellUsdc = (amount: bigint): GetQuoteParameters => ({
    chainId,
    srcToken: usdc().address,
    destToken: weth().address,
    amount,
    srcDecimals: 6,
    destDecimals: 18,
  })
  const trade = (amount: bigint): TradeRequest => ({
    chainId,
    destChainId: chainId,
    srcToken: usdc(),
    destToken: weth(),
    amount,
    side: 'SELL',
    mode: 'all',
    userAddress: deltaWallet(sandbox(), chainId, 1).account.address,
  })

  describe('postOtcOrder', () => {
    const recorded = fixtureJson('rfq-limit-order-api-object-polygon-1.json') as Record<string, unknown>
    const anyOrder = {
      nonceAndMeta: 1n,
      expiry: 0n,
      makerAsset: '0x0000000000000000000000000000000000000001',
      takerAsset: '0x0000000000000000000000000000000000000002',
      maker: '0x0000000000000000000000000000000000000003',
      taker: '0x0000000000000000000000000000000000000004',
      makerAmount: 1n,
      takerAmount: 1n,
    } as const
    const post = (body: unknown) => postOtcOrder(answeringClient(body), { chainId: 137, order: anyOrder, signature: '0x' })

    it('reads the stored order wrapped as { order }, as the real service answers', async () => {
      const posted = await post({ order: recorded })
      expect(posted).toMatchObject({ orderHash: recorded.orderHash, state: 'PENDING', makerAmount: BigInt(String(recorded.makerAmount)) })
    })

    it('still reads the bare stored order of section 2.6', async () => {
      expect((await post(recorded)).orderHash).toBe(recorded.orderHash)
    })

    it('names a bad field of the wrapped form by its path', async () => {
      const error = await rejection(post({ order: { ...recorded, makerAmount: 12.5 } }))
      expect(error).toBeInstanceOf(ApiResponseError)
      expect((error as ApiResponseError).problems).toEqual([
        expect.stringMatching(/^order\.makerAmount: expected a decimal integer string/),
      ])
    })
  })

  describe('a Delta price below its settlement gas', () => {
    it('getDeltaPrices throws GasCostExceedsTradeAmountError', async () => {
      const error = await rejection(getDeltaPrices(api(), sellUsdc(dustUsdc)))
      expect(error).toMatchObject({ name: 'GasCostExceedsTradeAmountError', status: 400, errorClass: 'operational' })
    })

    it('getQuote in mode DELTA throws GasCostExceedsTradeAmountError', async () => {
      const error = await rejection(getQuote(api(), { ...sellUsdc(dustUsdc), mode: 'DELTA' }))
      expect(error).toMatchObject({ name: 'GasCostExceedsTradeAmountError', endpoint: 'GET /v2/quote' })
    })

    it('reads the real refusal body { errorType, details } as the same error, in an error status or in a 200 answer', async () => {
      for (const status of [400, 200]) {
        const error = await rejection(getQuote(answeringClient(gasCostBody, status), sellUsdc(dustUsdc)))
        expect(error).toMatchObject({ name: 'GasCostExceedsTradeAmountError', serviceMessage: 'GasCostExceedsTradeAmount' })
        expect((error as ApiRequestError).details).toMatchObject({ details: 'Gas cost exceeds trade amount' })
      }
    })

    it('reads another refusal in a 200 answer as a refusal, not as an unreadable answer', async () => {
      const body = { errorType: 'SourceEth', details: 'ETH as source token is not supported' }
      const error = await rejection(getQuote(answeringClient(body), sellUsdc(dustUsdc)))
      expect(error).toBeInstanceOf(ApiRequestError)
      expect(error).toMatchObject({ serviceMessage: 'SourceEth', status: 200 })
    })

    it('getQuote in mode ALL answers Market with a typed fallback reason', async () => {
      const quote = await getQuote(api(), { ...sellUsdc(dustUsdc), mode: 'ALL' })
      if (quote.mode !== 'market') throw new Error(`expected a Market fallback, received ${quote.mode}`)
      expect(quote.fallbackReason).toEqual({ ...gasCostBody, gasCostExceedsTradeAmount: true })
      expect(quote.market.srcAmount).toBe(dustUsdc)
    })

    it('makes the executor’s mode choice take Market, with Delta unavailable', async () => {
      const quotes = await quoteTrade(api(), trade(dustUsdc))
      expect(quotes.chosen).toBe('market')
      expect(quotes.fallbackReason?.gasCostExceedsTradeAmount).toBe(true)
      expect(quotes.delta && 'error' in quotes.delta ? quotes.delta.error.name : quotes.delta).toBe('GasCostExceedsTradeAmountError')
      const choice = chooseMode({ side: 'SELL', delta: quotes.delta, market: quotes.market, preference: { mode: 'delta', marginBps: 0 } })
      expect(choice).toMatchObject({ mode: 'market', reason: 'only-market', delta: { status: 'unavailable' } })
    })
  })

  it('never chooses a Delta price the unified quote fell back from', async () => {
    // A fault real parts cannot produce on demand: the separate Delta price succeeds while the unified quote falls back.
    const fallingBack: typeof globalThis.fetch = async (input, init) => {
      const url = new URL(String(input))
      if (url.pathname !== '/v2/quote') return globalThis.fetch(input, init)
      url.searchParams.set('mode', 'MARKET')
      const { market } = (await (await globalThis.fetch(url, init)).json()) as { market: unknown }
      return Response.json({ market, fallbackReason: { errorType: 'PricingError', details: 'Error getting price data' } })
    }
    const quotes = await quoteTrade(sandboxClient(sandbox(), { fetch: fallingBack }), trade(parseUnits('2500', 6)))
    expect(quotes.delta && 'error' in quotes.delta ? quotes.delta.error.name : 'a Delta price').toBe('DeltaFallbackError')
    expect(quotes.fallbackReason).toEqual({
      errorType: 'PricingError',
      details: 'Error getting price data',
      gasCostExceedsTradeAmount: false,
    })
    const choice = chooseMode({
      side: 'SELL',
      delta: quotes.delta,
      market: quotes.market,
      preference: { mode: 'delta', marginBps: 10_000 },
    })
    expect(choice).toMatchObject({ mode: 'market', reason: 'only-market', delta: { status: 'unavailable' } })
  })

  it('getDeltaOrder reads output.minAmount of a SELL order as a bigint', async () => {
    const wallet = deltaWallet(sandbox(), chainId, 2)
    await approveDelta(wallet, usdc().address)
    const placed = await mustPlaceDeltaOrder(sandbox(), { wallet, quote: { chainId, src: 'USDC', dest: 'WETH', amount: 100_000_000n } })
    const order = await getDeltaOrder(api(), { orderId: placed.id })
    expect(order.output.minAmount).toBe(BigInt(String(placed.order.destAmount)))
  })
})
