import { readFileSync } from 'node:fs'
import { maxUint256, parseEther, parseUnits } from 'viem'
import { describe, expect, it } from 'vitest'
import { marketRouterAddress, nativeTokenPlaceholder } from '../../src/protocol/addresses.js'
import type { PriceRouteJson } from '../../src/sandbox/market/price-route.js'
import {
  approveToken,
  balanceOf,
  broadcast,
  buildMarketTransaction,
  type Envelope,
  marketWallet,
  quoteMarket,
  syncPools,
  tokenAddress,
} from '../helpers/market.js'
import { request, useSandbox } from '../helpers/sandbox.js'

const chainId = 1
const fixture = (name: string) => JSON.parse(readFileSync(new URL(`../fixtures/velora/${name}`, import.meta.url), 'utf8'))
/** A real v6.2 route that carries destAmountAfterFee (the unified quote's market block). */
const realMarketRoute = fixture('quote-mode-all-market-eth-usdc-1.json').market

type ErrorBody = { error: string }

/** The pools' side of a route: what its first swap takes and its last swap gives. */
const poolAmounts = (route: PriceRouteJson) => {
  const swaps = route.bestRoute.flatMap((part) => part.swaps)
  return {
    input: BigInt(swaps[0]?.swapExchanges[0]?.srcAmount ?? 0),
    output: BigInt(swaps.at(-1)?.swapExchanges[0]?.destAmount ?? 0),
  }
}

describe('GET /prices: decimals filled in for listed tokens', () => {
  const sandbox = useSandbox({ chainIds: [chainId], market: 'still' })
  const prices = (query: Record<string, string>) => request(sandbox().url, 'GET', `/prices?${new URLSearchParams(query)}`)
  const usdc = () => tokenAddress(sandbox(), chainId, 'USDC')

  it('prices token addresses the chain lists without srcDecimals / destDecimals', async () => {
    const answer = await prices({ srcToken: nativeTokenPlaceholder, destToken: usdc(), amount: parseEther('1').toString(), version: '6.2' })
    expect(answer.status, answer.text).toBe(200)
    expect((answer.json as { priceRoute: PriceRouteJson }).priceRoute).toMatchObject({ srcDecimals: 18, destDecimals: 6 })
  })

  it('answers 400 naming the missing parameter for an unlisted token address without decimals', async () => {
    const unlisted = '0x1111111111111111111111111111111111111111'
    const answer = await prices({ srcToken: usdc(), destToken: unlisted, amount: '1000000', version: '6.2' })
    expect(answer.status).toBe(400)
    expect((answer.json as ErrorBody).error).toBe(
      `Invalid decimals: destDecimals is required for destToken ${unlisted}, which network 1 does not list (GET /tokens/1); send the token's decimals`,
    )
  })

  it('still refuses the lowercase native placeholder, with or without decimals', async () => {
    const answer = await prices({ srcToken: nativeTokenPlaceholder.toLowerCase(), destToken: usdc(), amount: '1000', version: '6.2' })
    expect(answer.status).toBe(400)
    expect((answer.json as ErrorBody).error).toMatch(/^Invalid srcToken/)
  })
})

describe('destAmountAfterFee of Market routes', () => {
  const sandbox = useSandbox({ chainIds: [chainId], market: 'still' })
  const sellEth = { srcToken: 'ETH', destToken: 'USDC', amount: parseEther('1').toString(), version: '6.2' }

  it('places destAmountAfterFee where the real v6.2 answer does, equal to destAmount when no partner fee is charged', async () => {
    const route = await quoteMarket(sandbox(), sellEth)
    expect(Object.keys(route)).toEqual(Object.keys(realMarketRoute))
    expect(route.destAmountAfterFee).toBe(route.destAmount)
  })

  it('takes the quoted partnerFeeBps off destAmount, and states the stacked fee in partnerFee', async () => {
    const route = await quoteMarket(sandbox(), { ...sellEth, partner: 'paper-desk', partnerFeeBps: '25' })
    expect(route.partnerFee).toBe(0.26)
    expect(BigInt(route.destAmountAfterFee)).toBe(BigInt(route.destAmount) - (BigInt(route.destAmount) * 25n) / 10_000n)
  })

  it('carries it in GET /swap and in the market block of GET /v2/quote', async () => {
    const user = marketWallet(sandbox(), chainId, 1).account.address
    const swap = await request(
      sandbox().url,
      'GET',
      `/swap?${new URLSearchParams({ ...sellEth, userAddress: user, slippage: '50', partner: 'paper-desk', partnerAddress: user, partnerFeeBps: '10' })}`,
    )
    expect(swap.status, swap.text).toBe(200)
    const swapRoute = (swap.json as { priceRoute: PriceRouteJson }).priceRoute
    expect(BigInt(swapRoute.destAmountAfterFee)).toBe(BigInt(swapRoute.destAmount) - (BigInt(swapRoute.destAmount) * 10n) / 10_000n)
    const usdc = tokenAddress(sandbox(), chainId, 'USDC')
    const quote = await request(
      sandbox().url,
      'GET',
      `/v2/quote?${new URLSearchParams({ mode: 'MARKET', chainId: '1', srcToken: nativeTokenPlaceholder, destToken: usdc, srcDecimals: '18', destDecimals: '6', amount: sellEth.amount })}`,
    )
    expect(quote.status, quote.text).toBe(200)
    const market = (quote.json as { market: PriceRouteJson }).market
    expect(market.destAmountAfterFee).toBe(market.destAmount)
  })
})

describe('transfer taxes declared on GET /prices', () => {
  const sandbox = useSandbox({ chainIds: [chainId], market: 'still' })

  it('quotes a SELL net of the destination tax and executes it on-chain (the sandbox tokens charge none, so the user gets the pools’ output)', async () => {
    const wallet = marketWallet(sandbox(), chainId, 1)
    await syncPools(sandbox(), chainId)
    const route = await quoteMarket(sandbox(), {
      srcToken: 'ETH',
      destToken: 'USDC',
      amount: parseEther('1').toString(),
      version: '6.2',
      destTokenTransferFee: '100',
      destTokenDexTransferFee: '50',
    })
    const { output } = poolAmounts(route)
    expect(BigInt(route.destAmount)).toBe((((output * 9_950n) / 10_000n) * 9_900n) / 10_000n)
    const built = await buildMarketTransaction(sandbox(), chainId, {
      priceRoute: route,
      srcToken: 'ETH',
      destToken: 'USDC',
      srcAmount: route.srcAmount,
      slippage: 0,
      userAddress: wallet.account.address,
    })
    expect(built.status, built.text).toBe(200)
    const usdc = tokenAddress(sandbox(), chainId, 'USDC')
    const before = await balanceOf(wallet, usdc)
    expect((await broadcast(wallet, built.json as Envelope)).status).toBe('success')
    expect((await balanceOf(wallet, usdc)) - before).toBe(output)
  })

  it('quotes a SELL with a source tax on what reaches the pools', async () => {
    const amount = parseEther('1')
    const route = await quoteMarket(sandbox(), {
      srcToken: 'ETH',
      destToken: 'USDC',
      amount: amount.toString(),
      version: '6.2',
      srcTokenTransferFee: '300',
    })
    expect(route.srcAmount).toBe(amount.toString())
    expect(poolAmounts(route).input).toBe((amount * 9_700n) / 10_000n)
  })

  it('makes the router buy what the pools must give on a BUY with a destination tax, and grosses the source up for a source tax', async () => {
    const wallet = marketWallet(sandbox(), chainId, 2)
    const usdc = tokenAddress(sandbox(), chainId, 'USDC')
    const weth = tokenAddress(sandbox(), chainId, 'WETH')
    await approveToken(wallet, usdc, marketRouterAddress, maxUint256)
    await syncPools(sandbox(), chainId)
    const bought = parseEther('0.5')
    const route = await quoteMarket(sandbox(), {
      srcToken: 'USDC',
      destToken: 'WETH',
      amount: bought.toString(),
      side: 'BUY',
      version: '6.2',
      destTokenTransferFee: '200',
      srcTokenTransferFee: '100',
    })
    const { input, output } = poolAmounts(route)
    expect(route.destAmount).toBe(bought.toString())
    expect(output).toBe((bought * 10_000n + 9_799n) / 9_800n)
    expect(BigInt(route.srcAmount)).toBe((input * 10_000n + 9_899n) / 9_900n)
    const built = await buildMarketTransaction(sandbox(), chainId, {
      priceRoute: route,
      srcToken: 'USDC',
      destToken: 'WETH',
      destAmount: route.destAmount,
      slippage: 0,
      userAddress: wallet.account.address,
    })
    expect(built.status, built.text).toBe(200)
    const before = { usdc: await balanceOf(wallet, usdc), weth: await balanceOf(wallet, weth) }
    expect((await broadcast(wallet, built.json as Envelope)).status).toBe('success')
    expect((await balanceOf(wallet, weth)) - before.weth).toBe(output)
    expect(before.usdc - (await balanceOf(wallet, usdc))).toBe(input)
  })

  it('refuses a 100 % destination tax on a BUY: no amount can be delivered', async () => {
    const answer = await request(
      sandbox().url,
      'GET',
      `/prices?${new URLSearchParams({ srcToken: 'USDC', destToken: 'DAI', amount: parseUnits('10', 18).toString(), side: 'BUY', version: '6.2', destTokenTransferFee: '10000' })}`,
    )
    expect(answer.status).toBe(400)
    expect((answer.json as ErrorBody).error).toMatch(
      /^No routes found with enough liquidity: destTokenTransferFee=10000 taxes away every transfer/,
    )
  })
})
