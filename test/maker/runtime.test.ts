import { type Address, erc20Abi } from 'viem'
import { afterAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { getMarketPrices } from '../../src/api/market/get-market-prices.js'
import { defineMakerStrategy } from '../../src/maker/maker-strategy.js'
import { formatScaled } from '../../src/maker/runtime/exact-price.js'
import marketMaker from '../../strategies/market-maker/index.js'
import { sandboxToken, useSandbox } from '../helpers/sandbox.js'
import { createTempDirectory } from '../helpers/temp-directory.js'
import { type MakerFixture, openMakerFixture, waitFor } from './runtime-fixture.js'

const directory = createTempDirectory('deltaflow-maker-runtime-')
const fixtures: MakerFixture[] = []
afterAll(async () => {
  for (const fixture of fixtures) await fixture.close()
  directory.cleanup()
})

const weth: Address = '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2'
const usdc: Address = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48'
const tokens = { WETH: { address: weth, decimals: 18 }, USDC: { address: usdc, decimals: 6 } }

function makerConfig(pair: Record<string, unknown>, extra: { tokens?: Record<string, unknown>; maxReferenceAgeSeconds?: number } = {}) {
  return {
    maxReferenceAgeSeconds: extra.maxReferenceAgeSeconds ?? 60,
    chains: {
      '1': {
        tokens: extra.tokens ?? tokens,
        pairs: { 'WETH/USDC': { base: 'WETH', quote: 'USDC', levels: 3, spreadBps: 20, stepBps: 10, size: '0.5', ...pair } },
      },
    },
  }
}

describe('maker runtime', () => {
  const sandbox = useSandbox({ chainIds: [1] })
  let journals = 0
  const open = async (accountIndex: number, definition: Parameters<typeof openMakerFixture>[1]['definition'], config: unknown) => {
    const fixture = await openMakerFixture(sandbox(), {
      accountIndex,
      definition,
      config,
      journalFile: directory.path(`j${journals++}.sqlite`),
    })
    fixtures.push(fixture)
    await fixture.runtime.start()
    return fixture
  }

  it('builds a grid around the mid of the sandbox’s own SELL and BUY quotes, without RFQ liquidity', async () => {
    const { runtime, api } = await open(3, marketMaker, makerConfig({ reference: { source: 'market', size: '1' } }))
    expect(sandboxToken(sandbox(), 1, 'WETH').address).toBe(weth)
    const common = { network: 1, amount: 10n ** 18n, excludeRFQ: true }
    const sell = await getMarketPrices(api, { ...common, srcToken: weth, destToken: usdc, srcDecimals: 18, destDecimals: 6, side: 'SELL' })
    const buy = await getMarketPrices(api, { ...common, srcToken: usdc, destToken: weth, srcDecimals: 6, destDecimals: 18, side: 'BUY' })
    // mid in raw USDC per WETH = (sell + buy) / 2; the first bid is 20 bps under it (rounded down), the first ask 20 bps over (up).
    const sum = sell.destAmount + buy.srcAmount
    const firstBid = (sum * 9_980n) / 20_000n
    const firstAsk = (sum * 10_020n + 19_999n) / 20_000n
    const snapshot = runtime.book.snapshot(1)
    expect(snapshot.offReason).toBeUndefined()
    const grid = snapshot.prices['WETH/USDC']
    expect(grid?.bids?.[0]).toEqual([formatScaled(firstBid, 6), '0.5'])
    expect(grid?.asks?.[0]).toEqual([formatScaled(firstAsk, 6), '0.5'])
    expect(grid?.bids).toHaveLength(3)
    expect(grid?.asks?.map(([, amount]) => amount)).toEqual(['0.5', '0.5', '0.5'])
    expect(snapshot.tokens.WETH?.address).toBe(weth)
    expect(snapshot.pairs['WETH/USDC']).toMatchObject({ base: 'WETH', quote: 'USDC' })
    expect(snapshot.pairs['WETH/USDC']?.liquidityUSD).toBeGreaterThan(0)
  })

  it('approves the RFQ contract for what the wallet holds of every token it sells', async () => {
    const { runtime, account, chains } = await open(4, marketMaker, makerConfig({ reference: { source: 'fixed', price: '2000' } }))
    const client = chains.get(1)?.publicClient
    if (!client) throw new Error('no chain 1')
    for (const token of [weth, usdc]) {
      const [balance, allowance] = await Promise.all([
        client.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [account.address] }),
        client.readContract({ address: token, abi: erc20Abi, functionName: 'allowance', args: [account.address, runtime.rfqOf(1)] }),
      ])
      expect(balance).toBeGreaterThan(0n)
      expect(allowance).toBe(balance)
    }
  })

  it('switches off when its reference goes stale, and quotes again once prices come back', async () => {
    const s = sandbox()
    const { runtime } = await open(
      5,
      marketMaker,
      makerConfig({ reference: { source: 'market', size: '1' } }, { maxReferenceAgeSeconds: 1 }),
    )
    expect(runtime.book.snapshot(1).offReason).toBeUndefined()
    s.faults.add({ route: 'GET /prices', status: 503 })
    try {
      const reason = await waitFor(() => runtime.book.snapshot(1).offReason, 5_000, 'the maker to switch off')
      expect(reason).toMatch(/^reference price of WETH\/USDC is stale: older than 1 s; last error: /)
    } finally {
      s.faults.clear()
    }
    await waitFor(() => (runtime.book.snapshot(1).offReason === undefined ? true : undefined), 5_000, 'the maker to quote again')
    expect(runtime.book.snapshot(1).prices['WETH/USDC']?.bids).toHaveLength(3)
  })

  it('switches off when an inventory limit is hit', async () => {
    const { runtime } = await open(
      6,
      marketMaker,
      makerConfig({ reference: { source: 'fixed', price: '2000' } }, { tokens: { ...tokens, WETH: { ...tokens.WETH, maxBalance: '50' } } }),
    )
    expect(runtime.book.snapshot(1).offReason).toBe('risk limit: inventory of WETH on chain 1 is 100, above the cap 50')
  })

  it('switches off naming the strategy when it throws or returns a crossed grid, and quotes again when it recovers', async () => {
    let behaviour: 'good' | 'throw' | 'crossed' = 'good'
    const scripted = defineMakerStrategy({
      apiVersion: 1,
      name: 'scripted',
      configSchema: z.object({}),
      references: () => [],
      balances: () => [
        { chainId: 1, token: weth },
        { chainId: 1, token: usdc },
      ],
      quote: () => {
        if (behaviour === 'throw') throw new Error('division by zero')
        const asks: [string, string][] = behaviour === 'crossed' ? [['1999', '1']] : [['2001', '1']]
        return [
          {
            chainId: 1,
            tokens: {
              WETH: { symbol: 'WETH', name: 'Wrapped Ether', description: '', address: weth, decimals: 18, type: 'ERC20' },
              USDC: { symbol: 'USDC', name: 'USD Coin', description: '', address: usdc, decimals: 6, type: 'ERC20' },
            },
            pairs: { 'WETH/USDC': { base: 'WETH', quote: 'USDC', liquidityUSD: 4000 } },
            prices: { 'WETH/USDC': { bids: [['2000', '1']], asks } },
          },
        ]
      },
    })
    const { runtime } = await open(7, scripted, {})
    expect(runtime.book.snapshot(1).offReason).toBeUndefined()
    behaviour = 'throw'
    runtime.requote()
    expect(runtime.book.snapshot(1).offReason).toBe('strategy "scripted" failed in onQuote: division by zero')
    behaviour = 'crossed'
    runtime.requote()
    expect(runtime.book.snapshot(1).offReason).toMatch(/^strategy "scripted" returned an invalid offer: prices\.WETH\/USDC: crossed book/)
    // The crossed grid was never written.
    expect(runtime.book.snapshot(1).prices['WETH/USDC']?.asks).toEqual([['2001', '1']])
    behaviour = 'good'
    runtime.requote()
    expect(runtime.book.snapshot(1).offReason).toBeUndefined()
    expect(runtime.stats().strategyFailures).toBe(2)
  })
})
