import { parseUnits } from 'viem'
import { describe, expect, it } from 'vitest'
import { buildDeltaOrder } from '../../src/api/delta/build-delta-order.js'
import { type GetQuoteParameters, getQuote } from '../../src/api/get-quote.js'
import { buildMarketTransaction } from '../../src/api/market/build-market-transaction.js'
import { marketRouterAddress } from '../../src/protocol/addresses.js'
import { sandboxToken, sandboxWallet, useSandbox } from '../helpers/sandbox.js'
import { sandboxClient, sandboxSeconds } from './delta-flow.js'
import { watchedFetch } from './watched-fetch.js'

describe('getQuote', () => {
  const sandbox = useSandbox({ chainIds: [1, 100] })
  const user = () => sandboxWallet(sandbox(), 1, 1).account.address
  const sellUsdc = (chainId = 1): GetQuoteParameters => ({
    chainId,
    srcToken: sandboxToken(sandbox(), chainId, 'USDC').address,
    destToken: sandboxToken(sandbox(), chainId, 'WETH').address,
    amount: parseUnits('2500', 6),
    srcDecimals: 6,
    destDecimals: 18,
  })

  it('answers mode DELTA with a delta result whose route the build accepts', async () => {
    const { fetch, seen } = watchedFetch()
    const api = sandboxClient(sandbox(), { fetch, partner: 'deltaflow-tests' })
    const quote = await getQuote(api, { ...sellUsdc(), mode: 'DELTA' })
    expect(seen[0]?.url.searchParams.get('mode')).toBe('DELTA')
    expect(seen[0]?.url.searchParams.get('partner')).toBe('deltaflow-tests')
    if (quote.mode !== 'delta') throw new Error(`expected a delta quote, received ${quote.mode}`)
    const built = await buildDeltaOrder(api, {
      route: quote.delta.route,
      side: quote.delta.side,
      owner: user(),
      deadline: sandboxSeconds(sandbox()) + 600,
    })
    expect(built.toSign.primaryType).toBe('Order')
  })

  it('answers mode MARKET with a market result whose route the transaction builder accepts', async () => {
    const api = sandboxClient(sandbox())
    const quote = await getQuote(api, { ...sellUsdc(), mode: 'MARKET' })
    if (quote.mode !== 'market') throw new Error(`expected a market quote, received ${quote.mode}`)
    expect(quote.market.version).toBe('6.2')
    expect(quote.fallbackReason).toBeUndefined()
    const envelope = await buildMarketTransaction(api, { priceRoute: quote.market, userAddress: user(), slippage: 100, ignoreChecks: true })
    expect(envelope.to).toBe(marketRouterAddress)
  })

  it('answers mode ALL with exactly one of the two', async () => {
    const quote = await getQuote(sandboxClient(sandbox()), sellUsdc())
    expect(['delta', 'market']).toContain(quote.mode)
  })

  it('falls back to Market with the reason on a chain without Delta', async () => {
    const quote = await getQuote(sandboxClient(sandbox()), { ...sellUsdc(100), mode: 'ALL' })
    if (quote.mode !== 'market') throw new Error(`expected a market quote, received ${quote.mode}`)
    expect(quote.market.network).toBe(100)
    expect(quote.fallbackReason?.details).toMatch(/Unsupported chain/)
  })
})
