import { parseEther, parseUnits } from 'viem'
import { beforeAll, describe, expect, it } from 'vitest'
import type { ApiRequestError } from '../../src/api/errors.js'
import { getOtcFillableBalance } from '../../src/api/otc/get-otc-fillable-balance.js'
import { getOtcOrder } from '../../src/api/otc/get-otc-order.js'
import { postOtcOrder } from '../../src/api/otc/post-otc-order.js'
import { getContracts } from '../../src/api/resources/get-contracts.js'
import { InvalidSignatureError, OrderExpiredError, OrderNotFoundError, UnsupportedChainError } from '../../src/api/service-errors.js'
import { hashRfqOrder, type RfqOrder } from '../../src/protocol/rfq-order.js'
import { approveRfq, developmentAccount, makeRfqOrder, sandboxNow, sandboxToken, signRfqOrder, userWallet } from '../helpers/otc.js'
import { useSandbox } from '../helpers/sandbox.js'
import { sandboxClient } from './delta-flow.js'

async function refusal<T extends ApiRequestError>(promise: Promise<unknown>, type: abstract new (...args: never[]) => T): Promise<T> {
  const error = await promise.then(
    () => new Error('expected the service to refuse the request'),
    (reason: unknown) => reason,
  )
  expect(error).toBeInstanceOf(type)
  return error as T
}

describe('OTC endpoints of the API client', () => {
  const sandbox = useSandbox({ chainIds: [1, 8453] })
  const api = () => sandboxClient(sandbox())
  const maker = developmentAccount(1)
  const taker = developmentAccount(2)

  beforeAll(async () => {
    await approveRfq(sandbox(), userWallet(sandbox(), 1, 1), sandboxToken(sandbox(), 1, 'USDC'))
  })

  /** 1000 USDC for 0.5 WETH, from account 1 to account 2. */
  const p2pOrder = (overrides: Partial<RfqOrder> = {}) =>
    makeRfqOrder({
      expiry: sandboxNow(sandbox()) + 3_600n,
      makerAsset: sandboxToken(sandbox(), 1, 'USDC'),
      takerAsset: sandboxToken(sandbox(), 1, 'WETH'),
      maker: maker.address,
      taker: taker.address,
      makerAmount: parseUnits('1000', 6),
      takerAmount: parseEther('0.5'),
      ...overrides,
    })

  /** The RFQ domain of a chain, read from the deployment resource as a user would. */
  const rfqDomain = async (chainId: number) => {
    const verifyingContract = (await getContracts(api())).chains.get(chainId)?.augustusRFQ
    if (!verifyingContract) throw new Error(`no RFQ contract on chain ${chainId}`)
    return { chainId, verifyingContract }
  }

  it('posts a signed P2P order and reads it back, PENDING, with bigint amounts', async () => {
    const order = p2pOrder()
    const domain = await rfqDomain(1)
    const posted = await postOtcOrder(api(), { chainId: 1, order, signature: await signRfqOrder(1, order, domain) })
    expect(posted).toMatchObject({
      orderHash: hashRfqOrder(order, domain),
      chainId: 1,
      state: 'PENDING',
      type: 'P2P',
      nonceAndMeta: order.nonceAndMeta,
      makerAmount: order.makerAmount,
      takerAmount: order.takerAmount,
      maker: maker.address.toLowerCase(),
      takerFromMeta: taker.address.toLowerCase(),
      fillableBalance: order.makerAmount,
      transactionHash: null,
    })
    expect(await getOtcOrder(api(), { orderHash: posted.orderHash })).toMatchObject({ orderHash: posted.orderHash, state: 'PENDING' })
  })

  it('answers the amount reserved by the maker’s live orders under the lowercase token address', async () => {
    const usdc = sandboxToken(sandbox(), 1, 'USDC')
    const before = await getOtcFillableBalance(api(), { chainId: 1, account: maker.address, token: usdc })
    const order = p2pOrder({ makerAmount: parseUnits('7', 6) })
    await postOtcOrder(api(), { chainId: 1, order, signature: await signRfqOrder(1, order, await rfqDomain(1)) })
    const after = await getOtcFillableBalance(api(), { chainId: 1, account: maker.address, token: usdc })
    expect(Object.keys(after)).toEqual([usdc.toLowerCase()])
    expect((after[usdc.toLowerCase()] ?? 0n) - (before[usdc.toLowerCase()] ?? 0n)).toBe(parseUnits('7', 6))
    expect(await getOtcFillableBalance(api(), { chainId: 1, account: maker.address })).toMatchObject(after)
  })

  it('throws InvalidSignatureError for an order signed under another chain’s domain', async () => {
    const order = p2pOrder()
    const signature = await signRfqOrder(1, order, await rfqDomain(8453))
    const error = await refusal(postOtcOrder(api(), { chainId: 1, order, signature }), InvalidSignatureError)
    expect(error.hint).toContain('RFQ domain')
  })

  it('throws OrderExpiredError for an expiry already past', async () => {
    const order = p2pOrder({ expiry: sandboxNow(sandbox()) - 60n })
    await refusal(
      postOtcOrder(api(), { chainId: 1, order, signature: await signRfqOrder(1, order, await rfqDomain(1)) }),
      OrderExpiredError,
    )
  })

  it('throws UnsupportedChainError for a chain the service does not run', async () => {
    const order = p2pOrder()
    const signature = await signRfqOrder(1, order, await rfqDomain(1))
    expect((await refusal(postOtcOrder(api(), { chainId: 999, order, signature }), UnsupportedChainError)).status).toBe(422)
  })

  it('throws OrderNotFoundError for an unknown order hash', async () => {
    expect((await refusal(getOtcOrder(api(), { orderHash: `0x${'cd'.repeat(32)}` }), OrderNotFoundError)).status).toBe(404)
  })
})
