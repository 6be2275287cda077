import { type Address, erc20Abi, parseEther, parseUnits } from 'viem'
import { describe, expect, it } from 'vitest'
import type { ApiClient } from '../../src/api/client.js'
import type { ApiRequestError } from '../../src/api/errors.js'
import { buildMarketTransaction } from '../../src/api/market/build-market-transaction.js'
import { getChains } from '../../src/api/market/get-chains.js'
import { getContractTakers } from '../../src/api/market/get-contract-takers.js'
import { getMarketPrices } from '../../src/api/market/get-market-prices.js'
import { getSwap } from '../../src/api/market/get-swap.js'
import { getTokens } from '../../src/api/market/get-tokens.js'
import {
  InvalidPriceRouteError,
  InvalidTokenError,
  PartnerNotAllowedError,
  StalePriceRouteError,
} from '../../src/api/market/market-errors.js'
import type { MarketPriceRoute } from '../../src/api/market/price-route-schema.js'
import {
  InsufficientAllowanceError,
  InsufficientBalanceError,
  NoRouteError,
  TokenNotSupportedError,
  UnsupportedChainError,
} from '../../src/api/service-errors.js'
import { marketRouterAddress, nativeTokenPlaceholder } from '../../src/protocol/addresses.js'
import { waitForLocalReceipt } from '../../src/sandbox/chains/receipt.js'
import { approveToken } from '../helpers/market.js'
import { type SandboxWallet, sandboxToken, sandboxWallet, useSandbox } from '../helpers/sandbox.js'
import { sandboxClient } from './delta-flow.js'
import { watchedFetch } from './watched-fetch.js'

async function refusal<T extends ApiRequestError>(promise: Promise<unknown>, type: abstract new (...args: never[]) => T): Promise<T> {
  const error = await promise.then(
    () => new Error('expected the service to refuse the request'),
    (reason: unknown) => reason,
  )
  expect(error).toBeInstanceOf(type)
  expect((error as T).errorClass).toBe('operational')
  return error as T
}

const sellEth = (client: ApiClient, amount = parseEther('1')) => getMarketPrices(client, { srcToken: 'ETH', destToken: 'USDC', amount })

describe('Market endpoints of the API client', () => {
  const sandbox = useSandbox({ chainIds: [1, 8453] })
  const api = () => sandboxClient(sandbox())
  const usdc = () => sandboxToken(sandbox(), 1, 'USDC')

  describe('price and transaction', () => {
    it('answers a typed v6.2 route whose raw form keeps the amounts as strings and hmac last', async () => {
      const route = await sellEth(api())
      expect(route).toMatchObject({
        version: '6.2',
        network: 1,
        side: 'SELL',
        srcAmount: parseEther('1'),
        tokenTransferProxy: marketRouterAddress,
      })
      expect(typeof route.destAmount).toBe('bigint')
      expect((route.raw as { srcAmount: unknown }).srcAmount).toBe(parseEther('1').toString())
      expect(Object.keys(route.raw).at(-1)).toBe('hmac')
    })

    it('builds the transaction of a quoted route on its network; broadcast, it delivers at least the minimum', async () => {
      const wallet = sandboxWallet(sandbox(), 1, 1)
      const route = await sellEth(api())
      const { fetch, seen } = watchedFetch()
      const client = sandboxClient(sandbox(), { fetch })
      const envelope = await buildMarketTransaction(client, { priceRoute: route, userAddress: wallet.account.address, slippage: 100 })
      expect(seen[0]?.url.pathname).toBe('/transactions/1')
      expect(seen[0]?.body).toMatchObject({ srcToken: nativeTokenPlaceholder, srcAmount: route.srcAmount.toString(), slippage: 100 })
      expect(envelope).toMatchObject({ from: wallet.account.address, to: marketRouterAddress, value: route.srcAmount, chainId: 1 })
      expect(envelope.gas).toBeGreaterThan(21_000n)
      const before = await usdcBalance(wallet, usdc().address)
      const hash = await wallet.sendTransaction({ to: envelope.to, data: envelope.data, value: envelope.value, gas: envelope.gas })
      expect((await waitForLocalReceipt(wallet, hash)).status).toBe('success')
      expect((await usdcBalance(wallet, usdc().address)) - before).toBeGreaterThanOrEqual((route.destAmount * 9_900n) / 10_000n)
    })

    it('sends the route back byte for byte: reordered keys or a number cast from a string are refused', async () => {
      const user = sandboxWallet(sandbox(), 1, 1).account.address
      const route = await sellEth(api())
      const reordered = { ...route, raw: Object.fromEntries(Object.entries(route.raw).reverse()) }
      const recast = { ...route, raw: { ...route.raw, srcAmount: Number(route.srcAmount) } }
      for (const tampered of [reordered, recast]) {
        const built = buildMarketTransaction(api(), { priceRoute: tampered, userAddress: user, slippage: 100, ignoreChecks: true })
        const error = await refusal(built, InvalidPriceRouteError)
        expect(error.hint).toContain('priceRoute.raw')
      }
      await expect(
        buildMarketTransaction(api(), { priceRoute: route, userAddress: user, slippage: 100, ignoreChecks: true }),
      ).resolves.toMatchObject({
        to: marketRouterAddress,
      })
    })

    it('builds a BUY with the route’s destAmount and a slippage bound', async () => {
      const route = await getMarketPrices(api(), { srcToken: 'USDC', destToken: 'WETH', amount: parseEther('0.5'), side: 'BUY' })
      const envelope = await buildMarketTransaction(api(), {
        priceRoute: route,
        userAddress: sandboxWallet(sandbox(), 1, 1).account.address,
        slippage: 250,
        ignoreChecks: true,
      })
      expect(envelope).toMatchObject({ value: 0n, to: marketRouterAddress })
      expect(envelope.gas).toBeUndefined()
    })

    it('passes the query flags: eip1559 fee fields, no gas estimate, a given gas price, call parameters only', async () => {
      const user = sandboxWallet(sandbox(), 1, 1).account.address
      const eip1559 = await buildMarketTransaction(api(), {
        priceRoute: await sellEth(api()),
        userAddress: user,
        slippage: 100,
        eip1559: true,
        ignoreGasEstimate: true,
      })
      expect(eip1559.maxFeePerGas).toBeGreaterThan(0n)
      expect(eip1559.gasPrice).toBeUndefined()
      expect(eip1559.gas).toBeUndefined()
      const priced = await buildMarketTransaction(api(), {
        priceRoute: await sellEth(api()),
        userAddress: user,
        slippage: 100,
        ignoreChecks: true,
        gasPrice: 7_000_000_000n,
      })
      expect(priced.gasPrice).toBe(7_000_000_000n)
      const params = await buildMarketTransaction(api(), {
        priceRoute: await sellEth(api()),
        userAddress: user,
        slippage: 100,
        ignoreChecks: true,
        onlyParams: true,
      })
      expect(params).toMatchObject({ beneficiary: user })
    })

    it('prices and builds in one call with GET /swap', async () => {
      const swap = await getSwap(api(), {
        srcToken: 'ETH',
        destToken: 'USDC',
        amount: parseEther('1'),
        slippage: 100,
        userAddress: sandboxWallet(sandbox(), 1, 1).account.address,
      })
      expect(swap.priceRoute.version).toBe('6.2')
      expect(swap.txParams).toMatchObject({ to: marketRouterAddress, value: parseEther('1'), chainId: 1 })
    })
  })

  describe('catalogue', () => {
    it('lists the chains, the tokens of a chain and its contract takers', async () => {
      expect((await getChains(api())).map((chain) => chain.chainId)).toEqual([1, 8453])
      const tokens = await getTokens(api(), { network: 8453 })
      expect(tokens).toContainEqual(
        expect.objectContaining({ symbol: 'USDC', address: sandboxToken(sandbox(), 8453, 'USDC').address, decimals: 6 }),
      )
      expect(await getContractTakers(api(), { network: 1 })).toEqual([marketRouterAddress])
    })
  })

  describe('refusals as typed errors', () => {
    it('throws InvalidTokenError for the native asset in lowercase', async () => {
      const priced = getMarketPrices(api(), {
        srcToken: nativeTokenPlaceholder.toLowerCase(),
        srcDecimals: 18,
        destToken: 'USDC',
        amount: 1n,
      })
      const error = await refusal(priced, InvalidTokenError)
      expect(error.serviceMessage).toMatch(/^Invalid srcToken/)
      expect(error.hint).toContain(nativeTokenPlaceholder)
    })

    it('throws UnsupportedChainError (422) for a network the service does not run', async () => {
      const error = await refusal(
        getMarketPrices(api(), { srcToken: 'ETH', destToken: 'USDC', amount: 1n, network: 10 }),
        UnsupportedChainError,
      )
      expect(error.status).toBe(422)
    })

    it('throws TokenNotSupportedError for an unknown symbol, NoRouteError when the filters leave no pool', async () => {
      await refusal(getMarketPrices(api(), { srcToken: 'NOPE', destToken: 'USDC', amount: 1n }), TokenNotSupportedError)
      const filtered = getMarketPrices(api(), {
        srcToken: 'ETH',
        destToken: 'USDC',
        amount: parseEther('1'),
        excludeDEXS: ['SandboxPool30'],
      })
      expect((await refusal(filtered, NoRouteError)).serviceMessage).toBe('No routes found with enough liquidity')
    })

    it('throws PartnerNotAllowedError for partner fees under the anonymous partner', async () => {
      const built = buildMarketTransaction(api(), {
        priceRoute: await sellEth(api()),
        userAddress: sandboxWallet(sandbox(), 1, 1).account.address,
        slippage: 100,
        partnerAddress: '0x00000000000000000000000000000000000000aa',
        partnerFeeBps: 50,
        ignoreChecks: true,
      })
      expect((await refusal(built, PartnerNotAllowedError)).status).toBe(422)
    })

    it('throws InsufficientAllowanceError naming the Market router when it is not approved', async () => {
      const wallet = sandboxWallet(sandbox(), 1, 2)
      const route = await getMarketPrices(api(), { srcToken: 'USDC', destToken: 'WETH', amount: parseUnits('100', 6) })
      const error = await refusal(
        buildMarketTransaction(api(), { priceRoute: route, userAddress: wallet.account.address, slippage: 100 }),
        InsufficientAllowanceError,
      )
      expect(error.mode).toBe('market')
      expect(error.hint).toContain('Market router')
      expect(error.hint).toContain('not the Delta contract')
    })

    it('throws InsufficientBalanceError when the user holds less than the swap needs', async () => {
      const wallet = sandboxWallet(sandbox(), 1, 3)
      await approveToken(wallet, usdc().address, marketRouterAddress, 10n ** 30n)
      const held = await usdcBalance(wallet, usdc().address)
      const route = await getMarketPrices(api(), { srcToken: 'USDC', destToken: 'DAI', amount: held + 1n, maxImpact: 100 })
      await refusal(
        buildMarketTransaction(api(), { priceRoute: route, userAddress: wallet.account.address, slippage: 100 }),
        InsufficientBalanceError,
      )
    })
  })
})

describe('Market routes with a fast clock', () => {
  const sandbox = useSandbox({ chainIds: [1], speed: 120 })

  it('throws StalePriceRouteError for a route older than 30 sandbox seconds', async () => {
    const api = sandboxClient(sandbox())
    const route: MarketPriceRoute = await sellEth(api)
    const quotedAt = sandbox().venue.clock.now()
    while (sandbox().venue.clock.now() - quotedAt <= 31_000) await new Promise((resolve) => setTimeout(resolve, 50))
    const built = buildMarketTransaction(api, {
      priceRoute: route,
      userAddress: sandboxWallet(sandbox(), 1, 1).account.address,
      slippage: 100,
      ignoreChecks: true,
    })
    const error = await refusal(built, StalePriceRouteError)
    expect(error.hint).toContain('Re-quote')
  })
})

function usdcBalance(wallet: SandboxWallet, token: Address): Promise<bigint> {
  return wallet.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [wallet.account.address] })
}
