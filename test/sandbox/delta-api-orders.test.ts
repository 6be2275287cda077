import { encodeFunctionData, erc20Abi, getAddress, parseEther, parseUnits } from 'viem'
import { beforeAll, describe, expect, it } from 'vitest'
import { deltaAddress, marketRouterAddress, nativeTokenPlaceholder } from '../../src/protocol/addresses.js'
import { sandboxAddress, sandboxOperator } from '../../src/sandbox/chains/catalogue.js'
import { placeContract } from '../../src/sandbox/chains/place-contract.js'
import { waitForLocalReceipt } from '../../src/sandbox/chains/receipt.js'
import { sendFixtureCall } from '../../src/sandbox/chains/send.js'
import { getContractArtifact } from '../../src/sandbox/contracts/compile.js'
import {
  approveDelta,
  type DeltaOrderJson,
  deltaToken,
  deltaWallet,
  expectApiError,
  mustBuild,
  mustPlaceDeltaOrder,
  mustPrice,
  noAgents,
  placeDeltaOrder,
  sandboxNow,
  signToSign,
  submitDelta,
} from '../helpers/delta.js'
import { request, useSandbox } from '../helpers/sandbox.js'

describe('POST /v2/delta/orders and the order reads', () => {
  const sandbox = useSandbox({ chainIds: [1, 8453], market: 'still' })
  const usdc = () => deltaToken(sandbox(), 1, 'USDC').address
  const sellUsdc = { chainId: 1, src: 'USDC', dest: 'WETH', amount: 100_000_000n }

  describe('submission', () => {
    const wallet = () => deltaWallet(sandbox(), 1, 1)
    beforeAll(async () => {
      await approveDelta(deltaWallet(sandbox(), 1, 1), deltaToken(sandbox(), 1, 'USDC').address)
    })

    it('stores a 65-byte-signed order as PENDING and answers it in the shape of section 2.2', async () => {
      const { built, answer } = await placeDeltaOrder(sandbox(), { wallet: wallet(), quote: sellUsdc })
      expect(answer.status, answer.text).toBe(200)
      const order = answer.json as DeltaOrderJson
      const value = built.toSign.value
      expect(order).toMatchObject({
        status: 'PENDING',
        side: 'SELL',
        type: 'MARKET',
        onChainOrderType: 'Order',
        input: { chainId: 1, token: usdc().toLowerCase(), amount: '100000000' },
        output: {
          chainId: 1,
          token: deltaToken(sandbox(), 1, 'WETH').address.toLowerCase(),
          expectedAmount: value.expectedAmount,
          executedAmount: '0',
        },
        owner: wallet().account.address.toLowerCase(),
        beneficiary: wallet().account.address.toLowerCase(),
        orderHash: built.orderHash,
        partner: 'anon',
        order: value,
        transactions: [],
        refunds: [],
        expiresAt: new Date(Number(value.deadline) * 1000).toISOString(),
      })
      expect(order.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/)
    })

    it('accepts the 64-byte compact signature, also from an owner it has never seen', async () => {
      // Development account 8 signs nothing else in this file, so the sandbox recovers its key from this signature.
      const stranger = deltaWallet(sandbox(), 1, 8)
      await approveDelta(stranger, usdc())
      const { answer } = await placeDeltaOrder(sandbox(), { wallet: stranger, quote: sellUsdc, form: 64 })
      expect(answer.status, answer.text).toBe(200)
    })

    it('returns the stored order, not a duplicate, when the same signed order comes again', async () => {
      const { built, signature, answer } = await placeDeltaOrder(sandbox(), { wallet: wallet(), quote: sellUsdc })
      const again = await submitDelta(sandbox(), { chainId: 1, order: built.toSign.value, signature, partner: 'anon', ...noAgents })
      expect(again.status, again.text).toBe(200)
      expect((again.json as DeltaOrderJson).id).toBe((answer.json as DeltaOrderJson).id)
    })

    it('reports a partially fillable standard order as a FillableOrder of the type sent', async () => {
      const order = await mustPlaceDeltaOrder(sandbox(), {
        wallet: wallet(),
        quote: sellUsdc,
        submit: { type: 'LIMIT', partiallyFillable: true },
      })
      expect(order).toMatchObject({ onChainOrderType: 'FillableOrder', type: 'LIMIT' })
    })

    it('answers Invalid signature when the order differs from what was signed', async () => {
      const price = await mustPrice(sandbox(), sellUsdc)
      const { toSign } = await mustBuild(sandbox(), {
        route: price.route,
        side: 'SELL',
        owner: wallet().account.address,
        deadline: sandboxNow(sandbox()) + 600,
      })
      const signature = await signToSign(wallet(), toSign)
      const order = { ...toSign.value, destAmount: '1' }
      expectApiError(await submitDelta(sandbox(), { chainId: 1, order, signature, partner: 'anon' }), 400, 'Invalid signature')
    })

    it('answers Invalid signature for a signature under another chain’s domain', async () => {
      const price = await mustPrice(sandbox(), sellUsdc)
      const { toSign } = await mustBuild(sandbox(), {
        route: price.route,
        side: 'SELL',
        owner: wallet().account.address,
        deadline: sandboxNow(sandbox()) + 600,
      })
      const signature = await signToSign(wallet(), { ...toSign, domain: { ...toSign.domain, chainId: 8453 } })
      expectApiError(
        await submitDelta(sandbox(), { chainId: 1, order: toSign.value, signature, partner: 'anon' }),
        400,
        'Invalid signature',
      )
    })

    it('answers Invalid signature when someone else signed', async () => {
      const price = await mustPrice(sandbox(), sellUsdc)
      const { toSign } = await mustBuild(sandbox(), {
        route: price.route,
        side: 'SELL',
        owner: wallet().account.address,
        deadline: sandboxNow(sandbox()) + 600,
      })
      const signature = await signToSign(deltaWallet(sandbox(), 1, 5), toSign)
      expectApiError(
        await submitDelta(sandbox(), { chainId: 1, order: toSign.value, signature, partner: 'anon' }),
        400,
        'Invalid signature',
      )
    })

    it('answers Order expired when the deadline has passed', async () => {
      const { answer } = await placeDeltaOrder(sandbox(), {
        wallet: wallet(),
        quote: sellUsdc,
        build: { deadline: sandboxNow(sandbox()) - 60 },
      })
      expectApiError(answer, 400, 'Order expired')
    })

    it('answers 422 for a chain without Delta in the body', async () => {
      const { built, signature } = await placeDeltaOrder(sandbox(), { wallet: wallet(), quote: sellUsdc })
      const answer = await submitDelta(sandbox(), { chainId: 100, order: built.toSign.value, signature, partner: 'anon' })
      expectApiError(answer, 422, 'Unsupported chain')
    })

    it('answers 400 naming the field when order is not a struct', async () => {
      const answer = await submitDelta(sandbox(), { chainId: 1, order: { owner: 'me' }, signature: '0x', partner: 'anon' })
      expect(answer.status).toBe(400)
      expect(answer.text).toContain('body.order.owner')
    })
  })

  describe('funds', () => {
    it('answers InsufficientAllowance when the Delta contract is not approved', async () => {
      const { answer } = await placeDeltaOrder(sandbox(), {
        wallet: deltaWallet(sandbox(), 1, 3),
        quote: { ...sellUsdc, src: 'DAI', amount: 10n ** 20n },
      })
      expectApiError(answer, 400, 'InsufficientAllowance')
    })

    it('answers InsufficientAllowance when the Market router was approved instead of Delta', async () => {
      const wallet = deltaWallet(sandbox(), 1, 3)
      const wbtc = deltaToken(sandbox(), 1, 'WBTC').address
      const hash = await wallet.writeContract({
        address: wbtc,
        abi: erc20Abi,
        functionName: 'approve',
        args: [marketRouterAddress, 10n ** 30n],
      })
      await waitForLocalReceipt(wallet, hash)
      const { answer } = await placeDeltaOrder(sandbox(), { wallet, quote: { ...sellUsdc, src: 'WBTC', amount: 10_000_000n } })
      expectApiError(answer, 400, 'InsufficientAllowance')
    })

    it('answers InsufficientBalance when the owner holds less than the order sells', async () => {
      const wallet = deltaWallet(sandbox(), 1, 3)
      await approveDelta(wallet, usdc())
      // A trade this size moves the pool a lot: allow any impact so the price check does not answer first.
      const quote = { ...sellUsdc, amount: parseUnits('1000001', 6), extra: { maxImpact: '100' } }
      const { answer } = await placeDeltaOrder(sandbox(), { wallet, quote })
      expectApiError(answer, 400, 'InsufficientBalance')
    })

    it('takes a native source from the owner’s deposit in the Delta contract', async () => {
      const wallet = deltaWallet(sandbox(), 1, 4)
      const quote = { chainId: 1, src: nativeTokenPlaceholder, dest: 'USDC', amount: parseEther('1') }
      expectApiError((await placeDeltaOrder(sandbox(), { wallet, quote })).answer, 400, 'InsufficientBalance')
      const depositAbi = getContractArtifact('DeltaSettlement').abi
      const hash = await wallet.writeContract({ address: deltaAddress, abi: depositAbi, functionName: 'deposit', value: parseEther('1') })
      await waitForLocalReceipt(wallet, hash)
      const { answer } = await placeDeltaOrder(sandbox(), { wallet, quote })
      expect(answer.status, answer.text).toBe(200)
      expect((answer.json as DeltaOrderJson).input).toMatchObject({
        token: nativeTokenPlaceholder.toLowerCase(),
        amount: parseEther('1').toString(),
      })
    })

    it('accepts an order owned by an EIP-1271 wallet that validates the signature', async () => {
      const chain = sandbox().venue.chains.get(1)
      if (!chain) throw new Error('no chain 1')
      const signer = deltaWallet(sandbox(), 1, 6)
      const smartWallet = sandboxAddress('test.delta-api.eip1271')
      await placeContract(chain.clients, { name: 'Eip1271Wallet', address: smartWallet })
      const walletAbi = getContractArtifact('Eip1271Wallet').abi
      await sendFixtureCall(chain.clients, {
        from: sandboxOperator,
        to: smartWallet,
        abi: walletAbi,
        functionName: 'initialize',
        args: [signer.account.address],
      })
      await sendFixtureCall(chain.clients, {
        from: sandboxOperator,
        to: usdc(),
        abi: getContractArtifact('SandboxToken').abi,
        functionName: 'mint',
        args: [smartWallet, 10n ** 12n],
      })
      const approve = encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [deltaAddress, 10n ** 12n] })
      const hash = await signer.writeContract({
        address: smartWallet,
        abi: walletAbi,
        functionName: 'execute',
        args: [usdc(), 0n, approve],
      })
      await waitForLocalReceipt(signer, hash)

      const price = await mustPrice(sandbox(), sellUsdc)
      const { toSign } = await mustBuild(sandbox(), {
        route: price.route,
        side: 'SELL',
        owner: smartWallet,
        deadline: sandboxNow(sandbox()) + 600,
      })
      const signature = await signToSign(signer, toSign)
      const answer = await submitDelta(sandbox(), { chainId: 1, order: toSign.value, signature, partner: 'anon', ...noAgents })
      expect(answer.status, answer.text).toBe(200)
      expect((answer.json as DeltaOrderJson).owner).toBe(getAddress(smartWallet).toLowerCase())
    })
  })

  describe('reads', () => {
    const wallet = () => deltaWallet(sandbox(), 1, 2)
    const placed: DeltaOrderJson[] = []
    beforeAll(async () => {
      await approveDelta(wallet(), deltaToken(sandbox(), 1, 'USDC').address)
      placed.push(await mustPlaceDeltaOrder(sandbox(), { wallet: wallet(), quote: sellUsdc }))
      placed.push(await mustPlaceDeltaOrder(sandbox(), { wallet: wallet(), quote: sellUsdc }))
      // A limit far above the market: it rests and is never filled.
      const limit = (BigInt(placed[0]?.output.expectedAmount as string) * 10n).toString()
      placed.push(
        await mustPlaceDeltaOrder(sandbox(), {
          wallet: wallet(),
          quote: sellUsdc,
          build: { orderType: 'FillableOrder', limitAmount: limit },
          submit: { type: 'LIMIT', partiallyFillable: true },
        }),
      )
    })
    const list = async (query: string) => {
      const answer = await request(sandbox().url, 'GET', `/v2/delta/orders?userAddress=${wallet().account.address}&${query}`)
      expect(answer.status, answer.text).toBe(200)
      return answer.json as { data: DeltaOrderJson[]; total: number; page: number; limit: number; hasMore: boolean }
    }

    it('reads an order back by id', async () => {
      const [order] = placed
      const answer = await request(sandbox().url, 'GET', `/v2/delta/orders/${order?.id}`)
      expect(answer.status, answer.text).toBe(200)
      expect(answer.json).toMatchObject({ id: order?.id, orderHash: order?.orderHash, order: order?.order })
    })

    it('reads an order back by hash', async () => {
      const [order] = placed
      const answer = await request(sandbox().url, 'GET', `/v2/delta/orders/hash/${order?.orderHash}`)
      expect(answer.status, answer.text).toBe(200)
      expect((answer.json as DeltaOrderJson).id).toBe(order?.id)
    })

    it('answers 404 for an unknown id or hash, and 400 for an id that is not a uuid', async () => {
      expectApiError(await request(sandbox().url, 'GET', '/v2/delta/orders/00000000-0000-4000-8000-000000000000'), 404, 'Order not found')
      expectApiError(await request(sandbox().url, 'GET', `/v2/delta/orders/hash/0x${'ab'.repeat(32)}`), 404, 'Order not found')
      expect((await request(sandbox().url, 'GET', '/v2/delta/orders/not-a-uuid')).status).toBe(400)
    })

    it('lists the user’s orders newest first in pages', async () => {
      const first = await list('limit=2&page=1')
      expect({ total: first.total, page: first.page, limit: first.limit, hasMore: first.hasMore, count: first.data.length }).toEqual({
        total: 3,
        page: 1,
        limit: 2,
        hasMore: true,
        count: 2,
      })
      expect(first.data[0]?.id).toBe(placed[2]?.id)
      const second = await list('limit=2&page=2')
      expect({ hasMore: second.hasMore, ids: second.data.map((order) => order.id) }).toEqual({ hasMore: false, ids: [placed[0]?.id] })
    })

    it('filters by type, on-chain order type, chain and status', async () => {
      expect((await list('type=LIMIT')).data.map((order) => order.id)).toEqual([placed[2]?.id])
      expect((await list('onChainOrderType=Order')).total).toBe(2)
      expect((await list('chainId=8453')).total).toBe(0)
      expect((await list('chainId=1,8453')).total).toBe(3)
      expect((await list('status=COMPLETED,FAILED')).total).toBe(0)
      expect((await list('status=PENDING,ACTIVE')).total).toBe(3)
    })

    it('refuses page sizes outside 1..1000, a page below 1 and an unknown status', async () => {
      for (const query of ['limit=0', 'limit=1001', 'page=0', 'status=DONE']) {
        const answer = await request(sandbox().url, 'GET', `/v2/delta/orders?userAddress=${wallet().account.address}&${query}`)
        expect(answer.status, query).toBe(400)
      }
    })

    it('leaves for new limit orders what balance and allowance exceed the open limit orders', async () => {
      const answer = await request(sandbox().url, 'GET', `/v2/delta/orders/fillablebalance/1/${wallet().account.address}`)
      expect(answer.status, answer.text).toBe(200)
      // Granted 1,000,000 USDC, unlimited allowance, one open limit order of 100 USDC.
      expect(answer.json).toEqual({ [usdc().toLowerCase()]: parseUnits('999900', 6).toString() })
      const oneToken = await request(sandbox().url, 'GET', `/v2/delta/orders/fillablebalance/1/${wallet().account.address}/${usdc()}`)
      expect(oneToken.json).toEqual({ [usdc().toLowerCase()]: parseUnits('999900', 6).toString() })
    })
  })
})
