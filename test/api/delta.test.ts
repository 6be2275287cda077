import { type Address, erc20Abi, parseEther } from 'viem'
import { beforeAll, describe, expect, it } from 'vitest'
import { buildDeltaCancellation } from '../../src/api/delta/build-delta-cancellation.js'
import { buildDeltaOrder } from '../../src/api/delta/build-delta-order.js'
import { cancelDeltaOrders } from '../../src/api/delta/cancel-delta-orders.js'
import { RouteValidationFailedError } from '../../src/api/delta/delta-errors.js'
import type { DeltaOrder } from '../../src/api/delta/delta-order-schema.js'
import { isCrosschainRoute } from '../../src/api/delta/delta-price-schema.js'
import { getBridgeProtocols } from '../../src/api/delta/get-bridge-protocols.js'
import { getBridgeRoutes } from '../../src/api/delta/get-bridge-routes.js'
import { getDeltaAgents } from '../../src/api/delta/get-delta-agents.js'
import { getDeltaFillableBalance } from '../../src/api/delta/get-delta-fillable-balance.js'
import { getDeltaOrder } from '../../src/api/delta/get-delta-order.js'
import { getDeltaOrderByHash } from '../../src/api/delta/get-delta-order-by-hash.js'
import { getDeltaOrders } from '../../src/api/delta/get-delta-orders.js'
import { type GetDeltaPricesParameters, getDeltaPrices } from '../../src/api/delta/get-delta-prices.js'
import { getDeltaStrategies } from '../../src/api/delta/get-delta-strategies.js'
import { isTokenSupported } from '../../src/api/delta/is-token-supported.js'
import { submitDeltaOrder } from '../../src/api/delta/submit-delta-order.js'
import { deltaAddress } from '../../src/protocol/addresses.js'
import { isFinalDeltaStatus } from '../../src/protocol/delta-status.js'
import { approveDelta } from '../helpers/delta.js'
import { type SandboxWallet, sandboxToken, sandboxWallet, useSandbox } from '../helpers/sandbox.js'
import { noAgents, sandboxClient, sandboxSeconds, signToSign } from './delta-flow.js'
import { watchedFetch } from './watched-fetch.js'

describe('Delta endpoints of the API client', () => {
  const sandbox = useSandbox({ chainIds: [1, 8453], speed: 60 })
  const api = () => sandboxClient(sandbox())
  const token = (symbol: string, chainId = 1) => sandboxToken(sandbox(), chainId, symbol)
  const sellUsdc = (wallet: SandboxWallet, amount = 100_000_000n): GetDeltaPricesParameters => ({
    chainId: 1,
    srcToken: token('USDC').address,
    destToken: token('WETH').address,
    amount,
    srcDecimals: 6,
    destDecimals: 18,
    userAddress: wallet.account.address,
  })

  /** Quote, build, sign and submit through the client. */
  async function placeOrder(wallet: SandboxWallet, price: GetDeltaPricesParameters, excludeAgents: readonly string[] = noAgents) {
    const quoted = await getDeltaPrices(api(), price)
    const built = await buildDeltaOrder(api(), {
      route: quoted.route,
      side: quoted.side,
      owner: wallet.account.address,
      deadline: sandboxSeconds(sandbox()) + 3_600,
    })
    const signature = await signToSign(wallet, built.toSign)
    const order = await submitDeltaOrder(api(), { chainId: price.chainId, order: built.toSign.value, signature, excludeAgents })
    return { quoted, built, order }
  }

  async function waitForFinal(id: string): Promise<DeltaOrder> {
    for (let polls = 0; ; polls++) {
      const order = await getDeltaOrder(api(), { orderId: id })
      if (isFinalDeltaStatus(order.status)) return order
      if (polls > 300) throw new Error(`order ${id} still ${order.status}`)
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  }

  describe('quote, build, sign, submit, read', () => {
    const wallet = () => sandboxWallet(sandbox(), 1, 1)
    beforeAll(async () => {
      await approveDelta(wallet(), token('USDC').address)
    })

    it('answers a typed price: bigint amounts, the Delta contract as spender, the raw route kept', async () => {
      const price = await getDeltaPrices(api(), sellUsdc(wallet()))
      expect(price).toMatchObject({ side: 'SELL', spender: deltaAddress, alternatives: [] })
      expect(price.route.origin.input.amount).toBe(100_000_000n)
      expect(price.route.destination.output.amount).toBeGreaterThan(0n)
      expect(isCrosschainRoute(price.route)).toBe(false)
      const raw = price.route.raw as { origin: { input: { amount: unknown } } }
      expect(raw.origin.input.amount).toBe('100000000')
    })

    it('submits a signed order and reads it back by id, by hash and in the list', async () => {
      const { built, order } = await placeOrder(wallet(), sellUsdc(wallet()))
      expect(order).toMatchObject({
        status: 'PENDING',
        side: 'SELL',
        type: 'MARKET',
        onChainOrderType: 'Order',
        orderHash: built.orderHash,
        partner: 'anon',
        owner: wallet().account.address.toLowerCase(),
        input: { chainId: 1, amount: 100_000_000n },
        transactions: [],
        refunds: [],
      })
      expect(order.order).toEqual(built.toSign.value)
      expect(order.expiresAt).toBe(Number(built.toSign.value.deadline) * 1000)
      const { updatedAt: _, status: __, ...stable } = order
      expect(await getDeltaOrder(api(), { orderId: order.id })).toMatchObject(stable)
      expect(await getDeltaOrderByHash(api(), { orderHash: built.orderHash })).toMatchObject(stable)
      const list = await getDeltaOrders(api(), { userAddress: wallet().account.address, status: ['PENDING'], chainId: [1] })
      expect(list.data.map((listed) => listed.id)).toContain(order.id)
    })

    it('tags the build and the submission with the client’s partner', async () => {
      const { fetch, seen } = watchedFetch()
      const tagged = sandboxClient(sandbox(), { fetch, partner: 'deltaflow-tests' })
      const price = await getDeltaPrices(tagged, sellUsdc(wallet()))
      const built = await buildDeltaOrder(tagged, {
        route: price.route,
        side: price.side,
        owner: wallet().account.address,
        deadline: sandboxSeconds(sandbox()) + 600,
      })
      const signature = await signToSign(wallet(), built.toSign)
      const order = await submitDeltaOrder(tagged, { chainId: 1, order: built.toSign.value, signature, excludeAgents: noAgents })
      expect(seen.map((request) => request.url.searchParams.get('partner') ?? (request.body as { partner?: string }).partner)).toEqual([
        'deltaflow-tests',
        'deltaflow-tests',
        'deltaflow-tests',
      ])
      expect(price.partner.name).toBe('deltaflow-tests')
      expect(order.partner).toBe('deltaflow-tests')
    })

    it('pages the order list', async () => {
      await placeOrder(wallet(), sellUsdc(wallet(), 50_000_000n))
      await placeOrder(wallet(), sellUsdc(wallet(), 60_000_000n))
      const first = await getDeltaOrders(api(), { userAddress: wallet().account.address, page: 1, limit: 1 })
      const second = await getDeltaOrders(api(), { userAddress: wallet().account.address, page: 2, limit: 1 })
      expect(first).toMatchObject({ page: 1, limit: 1, hasMore: true })
      expect(first.total).toBeGreaterThanOrEqual(2)
      expect(second.data[0]?.id).not.toBe(first.data[0]?.id)
      const limits = await getDeltaOrders(api(), { userAddress: wallet().account.address, type: 'LIMIT' })
      expect(limits).toMatchObject({ data: [], total: 0, hasMore: false })
    })

    it('sends the route back byte for byte: the same route with one amount re-encoded as a number is refused', async () => {
      const price = await getDeltaPrices(api(), sellUsdc(wallet()))
      const recast = structuredClone(price.route.raw) as { origin: { input: { amount: unknown } } }
      recast.origin.input.amount = Number(recast.origin.input.amount)
      const deadline = sandboxSeconds(sandbox()) + 600
      const owner = wallet().account.address
      await expect(buildDeltaOrder(api(), { route: { raw: recast as never }, side: 'SELL', owner, deadline })).rejects.toBeInstanceOf(
        RouteValidationFailedError,
      )
      await expect(buildDeltaOrder(api(), { route: price.route, side: 'SELL', owner, deadline })).resolves.toMatchObject({
        toSign: { primaryType: 'Order', domain: { name: 'Portikus', chainId: 1 } },
      })
    })

    it('cancels an order with a signed cancellation: it ends CANCELLED', async () => {
      const { order } = await placeOrder(wallet(), sellUsdc(wallet()))
      const cancellation = await buildDeltaCancellation(api(), { orderIds: [order.id] })
      expect(cancellation.toSign).toMatchObject({ primaryType: 'OrderCancellations', value: { orderIds: [order.id] } })
      const signature = await signToSign(wallet(), cancellation.toSign)
      expect(await cancelDeltaOrders(api(), { orderIds: [order.id], signature })).toEqual({ cancelled: [order.id] })
      expect((await waitForFinal(order.id)).status).toBe('CANCELLED')
    })
  })

  describe('settlement', () => {
    it('reports a COMPLETED fill whose amounts are what the owner spent and received on-chain', async () => {
      const wallet = sandboxWallet(sandbox(), 1, 2)
      const weth = token('WETH').address
      const usdc = token('USDC').address
      await approveDelta(wallet, weth)
      const balance = (address: Address) =>
        wallet.readContract({ address, abi: erc20Abi, functionName: 'balanceOf', args: [wallet.account.address] })
      const before = { weth: await balance(weth), usdc: await balance(usdc) }
      const { order } = await placeOrder(
        wallet,
        { chainId: 1, srcToken: weth, destToken: usdc, amount: parseEther('1'), srcDecimals: 18, destDecimals: 6 },
        [],
      )
      const done = await waitForFinal(order.id)
      expect(done.status).toBe('COMPLETED')
      const received = (await balance(usdc)) - before.usdc
      expect(before.weth - (await balance(weth))).toBe(parseEther('1'))
      expect(done.transactions.reduce((total, fill) => total + (fill.receivedAmount ?? 0n), 0n)).toBe(received)
      expect(done.output.executedAmount).toBe(received)
      expect(done.transactions[0]?.originTx).toMatch(/^0x[0-9a-f]{64}$/)
    })
  })

  describe('crosschain', () => {
    it('prices a crosschain swap with alternatives, each of which the build accepts as quoted', async () => {
      const wallet = sandboxWallet(sandbox(), 1, 3)
      const price = await getDeltaPrices(api(), {
        chainId: 1,
        destChainId: 8453,
        srcToken: token('USDC').address,
        destToken: token('USDC', 8453).address,
        amount: 1_000_000_000n,
        srcDecimals: 6,
        destDecimals: 6,
      })
      expect(isCrosschainRoute(price.route)).toBe(true)
      expect(price.route.bridge?.tags).toContain('recommended')
      expect(price.alternatives.length).toBeGreaterThan(0)
      for (const route of [price.route, ...price.alternatives]) {
        const built = await buildDeltaOrder(api(), {
          route,
          side: price.side,
          owner: wallet.account.address,
          deadline: sandboxSeconds(sandbox()) + 600,
        })
        expect(built.toSign.value.bridge).toMatchObject({
          destinationChainId: 8453,
          protocolSelector: route.bridge?.contractParams.protocolSelector,
        })
      }
    })
  })

  describe('catalogue and balances', () => {
    it('lists the agents of a chain', async () => {
      expect(await getDeltaAgents(api(), { chainId: 1 })).toEqual(noAgents)
    })

    it('lists bridge routes between the running chains and the bridge protocols', async () => {
      const routes = await getBridgeRoutes(api(), { allowBridgeAndSwap: false })
      expect(routes).toContainEqual(expect.objectContaining({ srcChainId: 1, destChainId: 8453 }))
      const lane = routes.find((route) => route.srcChainId === 1 && route.destChainId === 8453)
      expect(lane?.tokens).toContain(token('USDC').address.toLowerCase())
      const protocols = await getBridgeProtocols(api())
      expect(protocols.map((protocol) => protocol.protocol).sort()).toEqual(['sandbox-cheap', 'sandbox-fast'])
    })

    it('answers the (empty) strategies of a chain and whether Delta trades a token', async () => {
      expect(await getDeltaStrategies(api(), { chainId: 1 })).toEqual({})
      expect(await isTokenSupported(api(), { chainId: 1, token: token('USDC').address })).toBe(true)
      expect(await isTokenSupported(api(), { chainId: 1, token: '0x00000000000000000000000000000000000000ab' })).toBe(false)
    })

    it('answers the fillable balance of a token as a bigint under its lowercase address', async () => {
      const wallet = sandboxWallet(sandbox(), 1, 4)
      const usdc = token('USDC').address
      await approveDelta(wallet, usdc)
      const onChain = await wallet.readContract({ address: usdc, abi: erc20Abi, functionName: 'balanceOf', args: [wallet.account.address] })
      const balances = await getDeltaFillableBalance(api(), { chainId: 1, userAddress: wallet.account.address, tokenAddress: usdc })
      expect(balances).toEqual({ [usdc.toLowerCase()]: onChain })
    })
  })
})
