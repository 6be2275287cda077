import { parseEther, parseUnits } from 'viem'
import { beforeAll, describe, expect, it } from 'vitest'
import { deltaAddress, marketRouterAddress, nativeTokenPlaceholder } from '../../src/protocol/addresses.js'
import { approveDelta, type DeltaOrderJson, deltaToken, deltaWallet, mustPlaceDeltaOrder, priceDelta } from '../helpers/delta.js'
import {
  approveRfq,
  developmentAccount,
  makeRfqOrder,
  otcOrderBody,
  rfqDomain,
  sandboxNow,
  signRfqOrder,
  userWallet,
} from '../helpers/otc.js'
import { request, useSandbox } from '../helpers/sandbox.js'

// Where the sandbox answered differently from the real service (as the official SDK's recorded answers show it), one
// test per answer.

const chainId = 1
const dustUsdc = 10_000n

describe('answers shaped like the real service', () => {
  const sandbox = useSandbox({ chainIds: [chainId, 100] })
  const usdc = () => deltaToken(sandbox(), chainId, 'USDC').address
  const weth = () => deltaToken(sandbox(), chainId, 'WETH').address

  const quote = (params: Record<string, string>) =>
    request(
      sandbox().url,
      'GET',
      `/v2/quote?${new URLSearchParams({ chainId: String(chainId), srcToken: usdc(), destToken: weth(), srcDecimals: '6', destDecimals: '18', ...params })}`,
    )

  describe('POST /ft/p2p/{chainId}/', () => {
    const maker = developmentAccount(1)
    const taker = developmentAccount(2)
    const p2pOrder = (makerAmount: bigint) =>
      makeRfqOrder({
        expiry: sandboxNow(sandbox()) + 3_600n,
        makerAsset: usdc(),
        takerAsset: weth(),
        maker: maker.address,
        taker: taker.address,
        makerAmount,
        takerAmount: parseEther('0.5'),
      })
    const post = async (makerAmount: bigint) => {
      const order = p2pOrder(makerAmount)
      const signature = await signRfqOrder(1, order, rfqDomain(sandbox(), chainId))
      return request(sandbox().url, 'POST', `/ft/p2p/${chainId}/`, otcOrderBody(order, signature))
    }

    beforeAll(async () => {
      await approveRfq(sandbox(), userWallet(sandbox(), chainId, 1), usdc())
    })

    it('wraps the stored order as { order }, which GET /ft/order/{orderHash} answers bare', async () => {
      const answer = await post(parseUnits('1000', 6))
      expect(answer.status, answer.text).toBe(200)
      const body = answer.json as { order: { orderHash: string; state: string } }
      expect(Object.keys(body)).toEqual(['order'])
      expect(body.order.state).toBe('PENDING')
      const read = await request(sandbox().url, 'GET', `/ft/order/${body.order.orderHash}`)
      expect(read.json).toEqual(body.order)
    })

    it('lists a maker’s and a taker’s orders, newest first, with the paging fields', async () => {
      const first = ((await post(parseUnits('11', 6))).json as { order: { orderHash: string } }).order.orderHash
      const second = ((await post(parseUnits('12', 6))).json as { order: { orderHash: string } }).order.orderHash
      const page = await request(sandbox().url, 'GET', `/ft/p2p/${chainId}/maker/${maker.address}?type=P2P&limit=2&orderBy=createdAt`)
      expect(page.status, page.text).toBe(200)
      const body = page.json as { orders: { orderHash: string }[]; limit: number; offset: number; total: number; hasMore: boolean }
      expect({ limit: body.limit, offset: body.offset, hasMore: body.hasMore }).toEqual({ limit: 2, offset: 0, hasMore: true })
      expect(body.total).toBeGreaterThanOrEqual(3)
      expect(body.orders.map((order) => order.orderHash)).toEqual([second, first])
      const ofTaker = await request(sandbox().url, 'GET', `/ft/p2p/${chainId}/taker/${taker.address}?limit=1000`)
      expect((ofTaker.json as { orders: { orderHash: string }[] }).orders.map((order) => order.orderHash)).toEqual(
        expect.arrayContaining([first, second]),
      )
      const none = await request(sandbox().url, 'GET', `/ft/p2p/${chainId}/maker/${maker.address}?type=LIMIT`)
      expect(none.json).toMatchObject({ orders: [], total: 0, hasMore: false })
    })

    it('refuses a list on a chain it does not run, and names a bad paging parameter', async () => {
      const chain = await request(sandbox().url, 'GET', `/ft/p2p/5/maker/${maker.address}`)
      expect({ status: chain.status, error: (chain.json as { error: string }).error }).toEqual({
        status: 422,
        error: 'Unsupported chain: 5 is not running in this sandbox (running: 1, 100)',
      })
      const limit = await request(sandbox().url, 'GET', `/ft/p2p/${chainId}/maker/${maker.address}?limit=-1`)
      expect(limit.status).toBe(400)
      expect((limit.json as { error: string }).error).toMatch(/^Validation failed: query\.limit: expected an integer from 1 to 1000/)
    })
  })

  describe('GET /adapters/contracts', () => {
    it('answers version 6.2 from the deployment data of /resources/contracts.json', async () => {
      const resource = (await request(sandbox().url, 'GET', '/resources/contracts.json')).json as {
        chains: Record<string, { augustusV6_2: string; delta?: string; augustusRFQ: string }>
      }
      const answer = await request(sandbox().url, 'GET', `/adapters/contracts?chainId=${chainId}&version=6.2`)
      expect(answer.status, answer.text).toBe(200)
      expect(answer.json).toEqual({
        AugustusSwapper: marketRouterAddress,
        TokenTransferProxy: marketRouterAddress,
        AugustusRFQ: resource.chains['1']?.augustusRFQ,
        Executors: {},
        ParaswapDelta: deltaAddress,
      })
      // Chain 100 has no Delta, as in production: no ParaswapDelta.
      const gnosis = await request(sandbox().url, 'GET', '/adapters/contracts?network=100&version=6.2')
      expect(gnosis.json).toEqual({
        AugustusSwapper: marketRouterAddress,
        TokenTransferProxy: marketRouterAddress,
        AugustusRFQ: resource.chains['100']?.augustusRFQ,
        Executors: {},
      })
    })

    it('names production’s legacy router for version 5 (the Market API’s default)', async () => {
      const answer = await request(sandbox().url, 'GET', `/adapters/contracts?chainId=${chainId}`)
      expect(answer.json).toMatchObject({
        AugustusSwapper: '0xDEF171Fe48CF0115B1d80b88dc8eAB59176FEe57',
        TokenTransferProxy: '0x216b4b4ba9f3e719726886d34a177484278bfcae',
      })
    })

    it('refuses a missing or unknown chain and a bad version', async () => {
      const missing = await request(sandbox().url, 'GET', '/adapters/contracts?version=6.2')
      expect(missing.status).toBe(400)
      expect((missing.json as { error: string }).error).toMatch(/expected chainId \(or network\), received neither/)
      const unknown = await request(sandbox().url, 'GET', '/adapters/contracts?chainId=5&version=6.2')
      expect(unknown.status).toBe(422)
      const version = await request(sandbox().url, 'GET', `/adapters/contracts?chainId=${chainId}&version=6.1`)
      expect((version.json as { error: string }).error).toMatch(/query\.version: expected 5 or 6\.2, received "6\.1"/)
    })
  })

  describe('GET /v2/quote and GET /v2/delta/prices', () => {
    it('takes the mode in any case', async () => {
      for (const [mode, block] of [
        ['delta', 'delta'],
        ['market', 'market'],
        ['Delta', 'delta'],
      ] as const) {
        const answer = await quote({ amount: parseUnits('2500', 6).toString(), mode })
        expect(answer.status, answer.text).toBe(200)
        expect(Object.keys(answer.json as object)).toEqual([block])
      }
    })

    it('spells a native output token in lowercase in outputToken', async () => {
      const answer = await quote({ amount: parseUnits('2500', 6).toString(), mode: 'DELTA', destToken: nativeTokenPlaceholder })
      expect(answer.status, answer.text).toBe(200)
      const price = (answer.json as { delta: { outputToken: { address: string } } }).delta
      expect(price.outputToken).toEqual({ chainId, address: nativeTokenPlaceholder.toLowerCase() })
    })

    it.each([
      ['SELL', dustUsdc.toString()],
      ['BUY', '1000000000'],
    ])('refuses a %s Delta price whose gas exceeds the trade with GasCostExceedsTradeAmount', async (side, amount) => {
      // BUY: 1e9 wei of WETH is worth far less than the settlement gas.
      const answer = await priceDelta(sandbox(), { chainId, src: 'USDC', dest: 'WETH', amount, side: side as 'SELL' | 'BUY' })
      expect(answer.status, answer.text).toBe(400)
      const body = answer.json as { error: string; errorType: string; details: string }
      expect(body).toMatchObject({ errorType: 'GasCostExceedsTradeAmount', details: 'Gas cost exceeds trade amount' })
      expect(body.error).toMatch(
        /^Gas cost exceeds trade amount: settling costs \d+ wei of gas \([\d.]+ USD\), the trade is worth [\d.e-]+ USD/,
      )
    })

    it('answers mode=DELTA for a dust amount with the same refusal', async () => {
      const answer = await quote({ amount: dustUsdc.toString(), mode: 'DELTA' })
      expect(answer.status, answer.text).toBe(400)
      expect(answer.json).toMatchObject({ errorType: 'GasCostExceedsTradeAmount', details: 'Gas cost exceeds trade amount' })
    })

    it('answers mode=ALL for a dust amount with the Market route and the reason', async () => {
      const answer = await quote({ amount: dustUsdc.toString(), mode: 'ALL' })
      expect(answer.status, answer.text).toBe(200)
      const body = answer.json as { market: { srcAmount: string }; fallbackReason: unknown }
      expect(Object.keys(body)).toEqual(['market', 'fallbackReason'])
      expect(body.fallbackReason).toEqual({ errorType: 'GasCostExceedsTradeAmount', details: 'Gas cost exceeds trade amount' })
      expect(body.market.srcAmount).toBe(dustUsdc.toString())
    })
  })

  describe('Delta orders', () => {
    const wallet = () => deltaWallet(sandbox(), chainId, 3)
    beforeAll(async () => {
      await approveDelta(wallet(), usdc())
    })

    it('carries output.minAmount (the signed destAmount) on a SELL order, in every read', async () => {
      const placed = await mustPlaceDeltaOrder(sandbox(), {
        wallet: wallet(),
        quote: { chainId, src: 'USDC', dest: 'WETH', amount: 100_000_000n },
      })
      const destAmount = String(placed.order.destAmount)
      expect(placed.output).toMatchObject({ minAmount: destAmount, expectedAmount: placed.order.expectedAmount, executedAmount: '0' })
      const byId = (await request(sandbox().url, 'GET', `/v2/delta/orders/${placed.id}`)).json as DeltaOrderJson
      const byHash = (await request(sandbox().url, 'GET', `/v2/delta/orders/hash/${placed.orderHash}`)).json as DeltaOrderJson
      const list = (await request(sandbox().url, 'GET', `/v2/delta/orders?userAddress=${wallet().account.address}`)).json as {
        data: DeltaOrderJson[]
      }
      for (const read of [byId, byHash, list.data.find((order) => order.id === placed.id)]) expect(read?.output.minAmount).toBe(destAmount)
    })

    it('leaves minAmount off a BUY order, whose output amount is fixed', async () => {
      const placed = await mustPlaceDeltaOrder(sandbox(), {
        wallet: wallet(),
        quote: { chainId, src: 'USDC', dest: 'WETH', amount: parseEther('0.01'), side: 'BUY' },
      })
      expect(placed.output).toEqual({ chainId, token: weth().toLowerCase(), amount: parseEther('0.01').toString() })
    })
  })
})
