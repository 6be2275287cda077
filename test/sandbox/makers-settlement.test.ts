import { type Address, getAddress, maxUint256, parseEventLogs } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { marketRouterAddress, rfqAddresses } from '../../src/protocol/addresses.js'
import type { PriceGrid } from '../../src/protocol/price-grid.js'
import { developmentAccounts } from '../../src/sandbox/chains/accounts.js'
import { getContractArtifact } from '../../src/sandbox/contracts/compile.js'
import type { PriceRouteJson } from '../../src/sandbox/market/price-route.js'
import { type RunningSandbox, startSandbox } from '../../src/sandbox/start-sandbox.js'
import {
  approveToken,
  balanceOf,
  broadcast,
  buildMarketTransaction,
  type Envelope,
  type MarketWallet,
  marketWallet,
  quoteMarket,
  tokenAddress,
} from '../helpers/market.js'
import { catalogueMakerTokens, type FirmMode, type ScriptedMaker, startScriptedMaker, waitUntil } from '../helpers/scripted-maker.js'

const chainId = 1
const rfq = rfqAddresses[chainId] ?? '0x'
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
const credentials = { domain: 'settlement-tests', accessKey: 'key-2', secret: 'another-secret' }
const oneWeth = 10n ** 18n
const makerIndex = 9

function account(index: number) {
  const key = developmentAccounts[index]?.privateKey
  if (!key) throw new Error(`no development account ${index}`)
  return privateKeyToAccount(key)
}

describe('sandbox makers: firm quotes and settlement', () => {
  let maker: ScriptedMaker
  let sandbox: RunningSandbox
  let makerWallet: MarketWallet
  let weth: Address
  let usdc: Address

  beforeAll(async () => {
    maker = await startScriptedMaker({
      chainId,
      rfq,
      account: account(makerIndex),
      impostor: account(8),
      tokens: catalogueMakerTokens(chainId, ['WETH', 'USDC']),
      pairs: { 'WETH/USDC': { base: 'WETH', quote: 'USDC' } },
      prices: { 'WETH/USDC': book },
      credentials,
      stallMs: 1_500,
    })
    sandbox = await startSandbox({
      chainIds: [chainId],
      market: 'still',
      makers: [{ name: 'scripted', chainId, url: maker.url, auth: credentials }],
      makerTiming: { pricesIntervalMs: 100, firmTimeoutMs: 600 },
    })
    weth = tokenAddress(sandbox, chainId, 'WETH')
    usdc = tokenAddress(sandbox, chainId, 'USDC')
    makerWallet = marketWallet(sandbox, chainId, makerIndex)
    await approveToken(makerWallet, weth, rfq, maxUint256)
    await approveToken(makerWallet, usdc, rfq, maxUint256)
  })
  afterAll(async () => {
    await sandbox?.stop()
    await maker?.close()
  })

  const makerRoutes = () =>
    waitUntil(() => sandbox.makers.get('scripted')?.liquidity() !== undefined && sandbox.makers.get('scripted')?.status().state === 'ok', {
      what: 'the maker back in routing',
    })

  /** Quotes through the maker for `wallet` and builds with 0.5 % slippage; returns the route and the raw build answer. */
  const quoteAndBuild = async (
    wallet: MarketWallet,
    query: { srcToken: string; destToken: string; amount: bigint; side: 'SELL' | 'BUY' },
  ) => {
    await makerRoutes()
    const user = wallet.account.address
    const route = await quoteMarket(sandbox, {
      network: String(chainId),
      version: '6.2',
      srcToken: query.srcToken,
      destToken: query.destToken,
      amount: String(query.amount),
      side: query.side,
      userAddress: user,
    })
    expect(route.bestRoute[0]?.swaps[0]?.swapExchanges[0]?.exchange).toBe('AugustusRFQ')
    const built = await buildMarketTransaction(sandbox, chainId, {
      priceRoute: route,
      srcToken: query.srcToken,
      destToken: query.destToken,
      userAddress: user,
      ...(query.side === 'SELL' ? { srcAmount: route.srcAmount } : { destAmount: route.destAmount }),
      slippage: 50,
    })
    return { route, built }
  }

  const orderFilledEvents = (receipt: Awaited<ReturnType<typeof broadcast>>) =>
    parseEventLogs({ abi: getContractArtifact('RfqSettlement').abi, logs: receipt.logs, eventName: 'OrderFilled' }).filter(
      (log) => log.address.toLowerCase() === rfq.toLowerCase(),
    )

  it('settles a SELL on-chain through the RFQ contract: user and maker balances move exactly by the fill', async () => {
    const user = marketWallet(sandbox, chainId, 1)
    await approveToken(user, weth, marketRouterAddress, maxUint256)
    const { route, built } = await quoteAndBuild(user, { srcToken: 'WETH', destToken: 'USDC', amount: oneWeth, side: 'SELL' })
    expect(built.status, built.text).toBe(200)
    const firm = maker.firmRequests.at(-1)
    expect(firm).toMatchObject({
      makerAsset: usdc,
      takerAsset: weth,
      takerAmount: (oneWeth * 101n) / 100n,
      userAddress: user.account.address,
      takerAddress: getAddress(marketRouterAddress),
    })
    const order = maker.firmOrders.at(-1) as Record<string, string>
    const makerFill = (oneWeth * BigInt(order.makerAmount ?? 0)) / BigInt(order.takerAmount ?? 1)
    expect(makerFill).toBeGreaterThanOrEqual(BigInt(route.destAmount))

    const before = {
      userWeth: await balanceOf(user, weth),
      userUsdc: await balanceOf(user, usdc),
      makerWeth: await balanceOf(makerWallet, weth),
      makerUsdc: await balanceOf(makerWallet, usdc),
    }
    const receipt = await broadcast(user, built.json as Envelope)
    expect(receipt.status).toBe('success')
    expect(await balanceOf(user, weth)).toBe(before.userWeth - oneWeth)
    expect(await balanceOf(user, usdc)).toBe(before.userUsdc + makerFill)
    expect(await balanceOf(makerWallet, weth)).toBe(before.makerWeth + oneWeth)
    expect(await balanceOf(makerWallet, usdc)).toBe(before.makerUsdc - makerFill)
    expect(orderFilledEvents(receipt).map((event) => event.args)).toMatchObject([
      { maker: makerWallet.account.address, makerAsset: usdc, makerAmount: makerFill, takerAsset: weth, takerAmount: oneWeth },
    ])
  })

  it('settles a BUY on-chain: the user pays the least source whose maker share covers the amount bought', async () => {
    const user = marketWallet(sandbox, chainId, 2)
    await approveToken(user, usdc, marketRouterAddress, maxUint256)
    const { route, built } = await quoteAndBuild(user, { srcToken: 'USDC', destToken: 'WETH', amount: oneWeth, side: 'BUY' })
    expect(built.status, built.text).toBe(200)
    expect(maker.firmRequests.at(-1)).toMatchObject({
      makerAsset: weth,
      takerAsset: usdc,
      makerAmount: (oneWeth * 10_001n + 9_999n) / 10_000n,
    })
    const order = maker.firmOrders.at(-1) as Record<string, string>
    const makerAmount = BigInt(order.makerAmount ?? 0)
    const takerAmount = BigInt(order.takerAmount ?? 1)
    const takerFill = (oneWeth * takerAmount + makerAmount - 1n) / makerAmount
    const makerFill = (takerFill * makerAmount) / takerAmount
    expect(makerFill).toBeGreaterThanOrEqual(oneWeth)
    expect(takerFill).toBeLessThanOrEqual((BigInt(route.srcAmount) * 10_050n) / 10_000n)

    const before = {
      userWeth: await balanceOf(user, weth),
      userUsdc: await balanceOf(user, usdc),
      makerUsdc: await balanceOf(makerWallet, usdc),
    }
    const receipt = await broadcast(user, built.json as Envelope)
    expect(receipt.status).toBe('success')
    expect(await balanceOf(user, usdc)).toBe(before.userUsdc - takerFill)
    expect(await balanceOf(user, weth)).toBe(before.userWeth + makerFill)
    expect(await balanceOf(makerWallet, usdc)).toBe(before.makerUsdc + takerFill)
    expect(orderFilledEvents(receipt)).toHaveLength(1)
  })

  const badAnswers: { mode: FirmMode; reason: RegExp }[] = [
    { mode: 'error', reason: /answered 500/ },
    { mode: 'timeout', reason: /timed out/ },
    { mode: 'wrong-signer', reason: /bad signature/ },
    { mode: 'wrong-taker', reason: /taker is .* not the filling contract/ },
    { mode: 'wrong-user', reason: /nonceAndMeta names .* not the user/ },
    { mode: 'expired', reason: /expires at .* after the latest block/ },
    { mode: 'worse-price', reason: /the user's minimum is/ },
  ]

  it.each(badAnswers)(
    'refuses a build with Stale priceRoute when the firm answer is $mode, and takes the maker out of routing',
    async ({ mode, reason }) => {
      const user = marketWallet(sandbox, chainId, 3)
      const nonce = await user.getTransactionCount({ address: user.account.address })
      maker.firmMode = mode
      try {
        const { built } = await quoteAndBuild(user, { srcToken: 'WETH', destToken: 'USDC', amount: oneWeth, side: 'SELL' })
        expect(built.status).toBe(400)
        const error = (built.json as { error: string }).error
        expect(error).toMatch(/^Stale priceRoute: /)
        expect(error).toMatch(reason)
        expect((built.json as Record<string, unknown>).data).toBeUndefined()
        expect(sandbox.makers.get('scripted')?.status().lastError).toMatch(reason)
      } finally {
        maker.firmMode = 'ok'
      }
      expect(await user.getTransactionCount({ address: user.account.address })).toBe(nonce)
    },
  )

  it.each(['no-order', 'forbidden'] as const)(
    'caches the user as blacklisted when the firm answer is %s: its next quotes avoid the maker',
    async (mode) => {
      const user = marketWallet(sandbox, chainId, mode === 'no-order' ? 4 : 5)
      maker.firmMode = mode
      let route: PriceRouteJson
      try {
        const { built } = await quoteAndBuild(user, { srcToken: 'WETH', destToken: 'USDC', amount: oneWeth, side: 'SELL' })
        expect(built.status).toBe(400)
        expect((built.json as { error: string }).error).toMatch(/^Stale priceRoute: .*blacklisted/)
        route = await quoteMarket(sandbox, {
          network: String(chainId),
          version: '6.2',
          srcToken: 'WETH',
          destToken: 'USDC',
          amount: String(oneWeth),
          userAddress: user.account.address,
        })
      } finally {
        maker.firmMode = 'ok'
      }
      expect(route.bestRoute[0]?.swaps[0]?.swapExchanges[0]?.exchange).toBe('SandboxPool30')
      expect(sandbox.makers.get('scripted')?.status().state).toBe('ok')
    },
  )

  it('signs every request it sends to the maker validly', () => {
    expect(maker.rejectedAuth).toBe(0)
    expect(maker.served['/firm']).toBeGreaterThan(0)
  })
})
