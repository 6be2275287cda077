import {
  constructApproveTokenForLimitOrder,
  constructFetchFetcher,
  constructGetDeltaContract,
  constructGetDeltaOrders,
  constructGetLimitOrders,
  constructGetQuote,
  constructGetSpender,
  constructPartialSDK,
  constructSubmitLimitOrder,
  constructViemContractCaller,
  isFetcherError,
} from '@velora-dex/sdk'
import { type Hex, parseEther, parseUnits } from 'viem'
import { beforeAll, describe, expect, it } from 'vitest'
import { deltaAddress, marketRouterAddress } from '../../src/protocol/addresses.js'
import { waitForLocalReceipt } from '../../src/sandbox/chains/receipt.js'
import { approveDelta, deltaWallet, mustPlaceDeltaOrder } from '../helpers/delta.js'
import { rfqDomain, sandboxToken, userWallet } from '../helpers/otc.js'
import { useSandbox } from '../helpers/sandbox.js'

// The official SDK (@velora-dex/sdk, a development dependency) against the sandbox, as a user of the real service would
// run it: its fetch fetcher over HTTP and its viem contract caller on the sandbox chain. SDK 9.3.6 reaches the unified
// quote and the Delta reads at `{apiURL}/quote` and `{apiURL}/delta/...`, so those use the `/v2` prefix as apiURL.

const chainId = 1
const fetcher = constructFetchFetcher(fetch)
/** 0.01 USDC: far below the gas an agent spends to settle a Delta order. */
const dustUsdc = '10000'

describe('the official SDK against the sandbox', () => {
  const sandbox = useSandbox({ chainIds: [chainId] })
  const maker = () => userWallet(sandbox(), chainId, 1)
  const sdk = () =>
    constructPartialSDK(
      {
        chainId,
        apiURL: sandbox().url,
        fetcher,
        contractCaller: constructViemContractCaller(maker(), maker().account.address),
      },
      constructGetSpender,
      constructGetDeltaContract,
      constructSubmitLimitOrder,
      constructGetLimitOrders,
      constructApproveTokenForLimitOrder,
    )
  const v2 = () => constructPartialSDK({ chainId, apiURL: `${sandbox().url}/v2`, fetcher }, constructGetQuote, constructGetDeltaOrders)
  const usdc = () => sandboxToken(sandbox(), chainId, 'USDC')
  const weth = () => sandboxToken(sandbox(), chainId, 'WETH')

  describe('contracts (GET /adapters/contracts)', () => {
    it('getContracts answers the sandbox’s deployment, the one /resources/contracts.json lists', async () => {
      const resource = (await (await fetch(`${sandbox().url}/resources/contracts.json`)).json()) as {
        chains: Record<string, { augustusV6_2: string; delta: string; augustusRFQ: string }>
      }
      const deployed = resource.chains[String(chainId)]
      expect(await sdk().getContracts()).toEqual({
        AugustusSwapper: deployed?.augustusV6_2,
        TokenTransferProxy: deployed?.augustusV6_2,
        AugustusRFQ: deployed?.augustusRFQ,
        ParaswapDelta: deployed?.delta,
        Executors: {},
      })
    })

    it('getSpender, getDeltaContract and getAugustusRFQ name the router v6.2, Delta and the RFQ contract', async () => {
      expect(await sdk().getSpender()).toBe(marketRouterAddress)
      expect(await sdk().getDeltaContract()).toBe(deltaAddress)
      expect(await sdk().getAugustusRFQ()).toBe(rfqDomain(sandbox(), chainId).verifyingContract)
    })
  })

  describe('OTC (POST /ft/p2p/{chainId}/)', () => {
    beforeAll(async () => {
      // The SDK approves the spender it read from /adapters/contracts: the RFQ contract.
      const hash = (await sdk().approveMakerTokenForLimitOrder(parseUnits('1000000', 6).toString(), usdc())) as Hex
      const receipt = await waitForLocalReceipt(maker(), hash)
      expect(receipt.status).toBe('success')
    })

    it('submitP2POrder builds, signs and posts an order and reads `response.order`; the order reads back by hash and reserves funds', async () => {
      const taker = userWallet(sandbox(), chainId, 2).account.address
      const expiry = Math.floor(sandbox().venue.clock.now() / 1000) + 3600
      const posted = await sdk().submitP2POrder({
        nonce: 7,
        expiry,
        makerAsset: usdc(),
        takerAsset: weth(),
        makerAmount: parseUnits('1000', 6).toString(),
        takerAmount: parseEther('0.5').toString(),
        maker: maker().account.address,
        taker,
      })
      expect(posted).toBeDefined()
      expect(posted).toMatchObject({
        chainId,
        expiry,
        maker: maker().account.address.toLowerCase(),
        taker: taker.toLowerCase(),
        takerFromMeta: taker.toLowerCase(),
        makerAsset: usdc().toLowerCase(),
        takerAsset: weth().toLowerCase(),
        makerAmount: parseUnits('1000', 6).toString(),
        takerAmount: parseEther('0.5').toString(),
        state: 'PENDING',
        type: 'P2P',
      })
      expect(await sdk().getLimitOrderByHash(posted.orderHash)).toEqual(posted)
      const reserved = await sdk().getRequiredBalance({ maker: maker().account.address, token: usdc() })
      expect(BigInt(reserved[usdc().toLowerCase()] ?? '0')).toBeGreaterThanOrEqual(parseUnits('1000', 6))
    })

    it('getLimitOrders lists the maker’s P2P orders and the taker’s', async () => {
      const taker = userWallet(sandbox(), chainId, 3).account.address
      const posted = await sdk().submitP2POrder({
        expiry: Math.floor(sandbox().venue.clock.now() / 1000) + 3600,
        makerAsset: usdc(),
        takerAsset: weth(),
        makerAmount: parseUnits('10', 6).toString(),
        takerAmount: parseEther('0.005').toString(),
        maker: maker().account.address,
        taker,
      })
      const ofMaker = await sdk().getLimitOrders({ maker: maker().account.address, type: 'P2P' })
      expect(ofMaker.orders.map((order) => order.orderHash)).toContain(posted.orderHash)
      expect(ofMaker).toMatchObject({ offset: 0, limit: 100, total: ofMaker.orders.length, hasMore: false })
      const ofTaker = await sdk().getLimitOrders({ taker, type: 'P2P' })
      expect(ofTaker.orders.map((order) => order.orderHash)).toEqual([posted.orderHash])
    })
  })

  describe('unified quote (GET /v2/quote)', () => {
    const query = (amount: string, mode: 'delta' | 'market' | 'all') =>
      ({ srcToken: usdc(), destToken: weth(), amount, srcDecimals: 6, destDecimals: 18, mode, side: 'SELL' }) as const

    it('accepts the lowercase modes the SDK sends', async () => {
      expect(Object.keys(await v2().getQuote(query(parseUnits('2500', 6).toString(), 'delta')))).toEqual(['delta'])
      expect(Object.keys(await v2().getQuote(query(parseUnits('2500', 6).toString(), 'market')))).toEqual(['market'])
    })

    it('falls back to Market with GasCostExceedsTradeAmount for a dust amount in mode all', async () => {
      const quote = await v2().getQuote(query(dustUsdc, 'all'))
      expect('delta' in quote).toBe(false)
      if (!('fallbackReason' in quote)) throw new Error(`expected a Market fallback, received ${JSON.stringify(quote)}`)
      expect(quote.fallbackReason).toEqual({ errorType: 'GasCostExceedsTradeAmount', details: 'Gas cost exceeds trade amount' })
      expect(quote.market.srcAmount).toBe(dustUsdc)
    })

    it('refuses a dust amount in mode delta with the GasCostExceedsTradeAmount error', async () => {
      const error = await v2()
        .getQuote(query(dustUsdc, 'delta'))
        .then(
          () => new Error('expected a refusal'),
          (reason: unknown) => reason,
        )
      if (!isFetcherError(error)) throw error
      expect(error.response?.status).toBe(400)
      expect(error.response?.data).toMatchObject({ errorType: 'GasCostExceedsTradeAmount', details: 'Gas cost exceeds trade amount' })
    })

    it('writes the native destination in lowercase in outputToken, as the real answer does', async () => {
      const quote = await v2().getQuote({
        ...query(parseUnits('2500', 6).toString(), 'delta'),
        destToken: '0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE',
      })
      if (!('delta' in quote)) throw new Error('expected a delta block')
      const price = quote.delta as unknown as { outputToken: { address: string } }
      expect(price.outputToken.address).toBe('0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee')
    })
  })

  describe('Delta orders (GET /v2/delta/orders/{orderId})', () => {
    it('carries output.minAmount, the signed destAmount, on a SELL order', async () => {
      const wallet = deltaWallet(sandbox(), chainId, 4)
      await approveDelta(wallet, usdc())
      const placed = await mustPlaceDeltaOrder(sandbox(), { wallet, quote: { chainId, src: 'USDC', dest: 'WETH', amount: 100_000_000n } })
      const read = (await v2().getDeltaOrderById(placed.id)) as unknown as {
        output: { minAmount?: string }
        order: { destAmount: string }
      }
      expect(read.output.minAmount).toBe(read.order.destAmount)
    })
  })
})
