import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { rfqAddresses } from '../../src/protocol/addresses.js'
import { fillFromGrid, type PriceGrid } from '../../src/protocol/price-grid.js'
import { developmentAccounts } from '../../src/sandbox/chains/accounts.js'
import type { PriceRouteJson } from '../../src/sandbox/market/price-route.js'
import { type RunningSandbox, startSandbox } from '../../src/sandbox/start-sandbox.js'
import { quoteMarket } from '../helpers/market.js'
import { request } from '../helpers/sandbox.js'
import { catalogueMakerTokens, type ScriptedMaker, startScriptedMaker, waitUntil } from '../helpers/scripted-maker.js'

const chainId = 1
const rfq = rfqAddresses[chainId] ?? '0x'
// WETH/USDC priced better than the pools (about 1952 out for 1 WETH sold, 1965 in for 1 WETH bought).
const book: PriceGrid = {
  bids: [
    ['1960', '2'],
    ['1955.5', '10'],
  ],
  asks: [
    ['1962', '2'],
    ['1966.25', '10'],
  ],
}
const worseBook: PriceGrid = { bids: [['1900', '10']], asks: [['2100', '10']] }
const blacklistedUser = developmentAccounts[7]?.address ?? '0x'
const oneWeth = 10n ** 18n

function account(index: number) {
  const key = developmentAccounts[index]?.privateKey
  if (!key) throw new Error(`no development account ${index}`)
  return privateKeyToAccount(key)
}

/** The grid's fill with WETH as base (18 decimals) and USDC as quote (6). */
function gridFill(src: 'base' | 'quote', side: 'SELL' | 'BUY', amount: bigint): string {
  const fill = fillFromGrid(book, { src, side, amount, baseDecimals: 18, quoteDecimals: 6 })
  if (!fill.ok) throw new Error(`the test book cannot fill ${amount}`)
  return fill.amount.toString()
}

function swapExchange(route: PriceRouteJson) {
  const exchange = route.bestRoute[0]?.swaps[0]?.swapExchanges[0]
  if (!exchange) throw new Error('route without swap exchange')
  return exchange
}

describe('sandbox makers: Market routing', () => {
  let maker: ScriptedMaker
  let sandbox: RunningSandbox

  beforeAll(async () => {
    maker = await startScriptedMaker({
      chainId,
      rfq,
      account: account(9),
      impostor: account(8),
      tokens: catalogueMakerTokens(chainId, ['WETH', 'USDC']),
      pairs: { 'WETH/USDC': { base: 'WETH', quote: 'USDC' } },
      prices: { 'WETH/USDC': book },
      blacklist: [blacklistedUser],
    })
    sandbox = await startSandbox({
      chainIds: [chainId],
      market: 'still',
      makers: [{ name: 'scripted', chainId, url: maker.url }],
      makerTiming: { pricesIntervalMs: 100 },
    })
    await waitUntil(() => sandbox.makers.get('scripted')?.liquidity(), { what: 'the first prices' })
    await waitUntil(() => sandbox.makers.get('scripted')?.isBlacklisted(blacklistedUser), { what: 'the blacklist' })
  })
  afterAll(async () => {
    await sandbox?.stop()
    await maker?.close()
  })

  const quote = (query: Record<string, string>) => quoteMarket(sandbox, { network: String(chainId), version: '6.2', ...query })

  it('routes a SELL of the base token through the maker when its bids beat the pools, for exactly the grid amount', async () => {
    const route = await quote({ srcToken: 'WETH', destToken: 'USDC', amount: String(oneWeth) })
    expect(swapExchange(route)).toMatchObject({
      exchange: 'AugustusRFQ',
      srcAmount: String(oneWeth),
      destAmount: gridFill('base', 'SELL', oneWeth),
      percent: 100,
      poolAddresses: [rfq.toLowerCase()],
      data: { maker: 'scripted', pair: 'WETH/USDC' },
    })
    expect(route).toMatchObject({
      srcAmount: String(oneWeth),
      destAmount: gridFill('base', 'SELL', oneWeth),
      contractMethod: 'swapOnAugustusRFQTryBatchFill',
    })
    expect(route.bestRoute).toHaveLength(1)
    expect(route.bestRoute[0]?.swaps).toHaveLength(1)
  })

  it('routes a BUY of the base token through the maker when its asks beat the pools', async () => {
    const amount = 3n * oneWeth // two levels of the asks
    const route = await quote({ srcToken: 'USDC', destToken: 'WETH', amount: String(amount), side: 'BUY' })
    expect(swapExchange(route).exchange).toBe('AugustusRFQ')
    expect(route.srcAmount).toBe(gridFill('quote', 'BUY', amount))
    expect(route.destAmount).toBe(String(amount))
  })

  it('inverts the book for amounts given in the quote token', async () => {
    const usdc = 5_000_000_000n // 5,000 USDC: more than the first level's value
    const sell = await quote({ srcToken: 'USDC', destToken: 'WETH', amount: String(usdc) })
    expect(swapExchange(sell).exchange).toBe('AugustusRFQ')
    expect(sell.destAmount).toBe(gridFill('quote', 'SELL', usdc))
    const buy = await quote({ srcToken: 'WETH', destToken: 'USDC', amount: String(usdc), side: 'BUY' })
    expect(swapExchange(buy).exchange).toBe('AugustusRFQ')
    expect(buy.srcAmount).toBe(gridFill('base', 'BUY', usdc))
  })

  it('keeps the pools when the maker is priced worse than them', async () => {
    maker.prices = { 'WETH/USDC': worseBook }
    try {
      await waitUntil(
        async () =>
          swapExchange(await quote({ srcToken: 'WETH', destToken: 'USDC', amount: String(oneWeth) })).exchange === 'SandboxPool30',
        {
          what: 'the pools to win',
        },
      )
      const buy = await quote({ srcToken: 'USDC', destToken: 'WETH', amount: String(oneWeth), side: 'BUY' })
      expect(swapExchange(buy).exchange).toBe('SandboxPool30')
    } finally {
      maker.prices = { 'WETH/USDC': book }
    }
    await waitUntil(
      async () => swapExchange(await quote({ srcToken: 'WETH', destToken: 'USDC', amount: String(oneWeth) })).exchange === 'AugustusRFQ',
      {
        what: 'the maker to win again',
      },
    )
  })

  it('keeps the pools when the amount exceeds the depth of the maker grid', async () => {
    const route = await quote({ srcToken: 'WETH', destToken: 'USDC', amount: String(13n * oneWeth) })
    expect(swapExchange(route).exchange).toBe('SandboxPool30')
  })

  it('leaves makers out with excludeRFQ=true or excludeDEXS=AugustusRFQ', async () => {
    const query = { srcToken: 'WETH', destToken: 'USDC', amount: String(oneWeth) }
    expect(swapExchange(await quote({ ...query, excludeRFQ: 'true' })).exchange).toBe('SandboxPool30')
    expect(swapExchange(await quote({ ...query, excludeDEXS: 'AugustusRFQ' })).exchange).toBe('SandboxPool30')
    expect(swapExchange(await quote({ ...query, includeDEXS: 'SandboxPool30' })).exchange).toBe('SandboxPool30')
  })

  it('routes only the makers with includeDEXS=AugustusRFQ, and finds no route where they do not quote', async () => {
    const query = { srcToken: 'WETH', destToken: 'USDC', amount: String(oneWeth), includeDEXS: 'AugustusRFQ' }
    expect(swapExchange(await quote(query)).exchange).toBe('AugustusRFQ')
    const answer = await request(sandbox.url, 'GET', `/prices?${new URLSearchParams({ ...query, destToken: 'DAI', network: '1' })}`)
    expect(answer.status).toBe(400)
    expect((answer.json as { error: string }).error).toMatch(/^No routes found with enough liquidity/)
  })

  it('never routes the native asset through makers', async () => {
    const route = await quote({ srcToken: 'ETH', destToken: 'USDC', amount: String(oneWeth) })
    expect(swapExchange(route).exchange).toBe('SandboxPool30')
  })

  it("leaves out a maker that blacklisted the request's userAddress", async () => {
    const query = { srcToken: 'WETH', destToken: 'USDC', amount: String(oneWeth) }
    expect(swapExchange(await quote({ ...query, userAddress: blacklistedUser })).exchange).toBe('SandboxPool30')
    expect(swapExchange(await quote({ ...query, userAddress: account(1).address })).exchange).toBe('AugustusRFQ')
  })

  it('prices GET /swap without makers, as production does', async () => {
    const query = new URLSearchParams({
      srcToken: 'WETH',
      destToken: 'USDC',
      amount: String(oneWeth),
      network: '1',
      version: '6.2',
      slippage: '50',
      userAddress: account(1).address,
    })
    const answer = await request(sandbox.url, 'GET', `/swap?${query}`)
    expect(answer.status, answer.text).toBe(200)
    expect(swapExchange((answer.json as { priceRoute: PriceRouteJson }).priceRoute).exchange).toBe('SandboxPool30')
  })

  it('lists the maker among the other exchanges with otherExchangePrices=true', async () => {
    const route = await quote({ srcToken: 'WETH', destToken: 'USDC', amount: String(oneWeth), otherExchangePrices: 'true' })
    const rfqPrice = route.others?.find((other) => other.exchange === 'AugustusRFQ')
    expect(rfqPrice).toMatchObject({ destAmount: gridFill('base', 'SELL', oneWeth), unit: gridFill('base', 'SELL', oneWeth) })
    expect(route.others?.some((other) => other.exchange === 'SandboxPool30')).toBe(true)
  })
})
