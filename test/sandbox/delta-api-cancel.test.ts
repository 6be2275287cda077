import { randomUUID } from 'node:crypto'
import { beforeAll, describe, expect, it } from 'vitest'
import { deltaAddress } from '../../src/protocol/addresses.js'
import {
  approveDelta,
  type DeltaOrderJson,
  type DeltaWallet,
  deltaToken,
  deltaWallet,
  expectApiError,
  mustBuild,
  mustPlaceDeltaOrder,
  mustPrice,
  noAgents,
  sandboxNow,
  signToSign,
  submitDelta,
  type ToSign,
} from '../helpers/delta.js'
import { request, useSandbox } from '../helpers/sandbox.js'

describe('Delta cancellation', () => {
  // Fast enough that a relayer confirmation (about one sandbox second) happens within a test.
  const sandbox = useSandbox({ chainIds: [1, 8453], market: 'still', speed: 10 })
  const alice = () => deltaWallet(sandbox(), 1, 1)
  const bob = () => deltaWallet(sandbox(), 1, 2)
  const sellUsdc = (chainId = 1) => ({ chainId, src: 'USDC', dest: 'WETH', amount: 50_000_000n })

  beforeAll(async () => {
    for (const [chainId, index] of [
      [1, 1],
      [1, 2],
      [8453, 1],
    ] as const) {
      await approveDelta(deltaWallet(sandbox(), chainId, index), deltaToken(sandbox(), chainId, 'USDC').address)
    }
  })

  /** A MARKET order nobody bids on: it waits, PENDING. */
  const placeWaiting = (wallet: DeltaWallet = alice(), chainId = 1) => mustPlaceDeltaOrder(sandbox(), { wallet, quote: sellUsdc(chainId) })

  /** A LIMIT order far above the market: it rests, and no auction ever runs for it. */
  const placeResting = async (wallet: DeltaWallet = alice()) => {
    const price = await mustPrice(sandbox(), sellUsdc())
    const limitAmount = (BigInt(price.route.origin.output.amount) * 10n).toString()
    return mustPlaceDeltaOrder(sandbox(), {
      wallet,
      quote: sellUsdc(),
      build: { orderType: 'FillableOrder', limitAmount },
      submit: { type: 'LIMIT', partiallyFillable: true },
    })
  }

  const buildCancellation = (orderIds: string[]) => request(sandbox().url, 'POST', '/v2/delta/orders/build/cancellation', { orderIds })
  const cancel = (orderIds: string[], signature: string) =>
    request(sandbox().url, 'POST', '/v2/delta/orders/cancel', { orderIds, signature })
  const mustBuildCancellation = async (orderIds: string[]) => {
    const answer = await buildCancellation(orderIds)
    expect(answer.status, answer.text).toBe(200)
    return answer.json as { toSign: ToSign; hash: string }
  }
  const readOrder = async (id: string) => (await request(sandbox().url, 'GET', `/v2/delta/orders/${id}`)).json as DeltaOrderJson

  /** Polls until the order is CANCELLING or CANCELLED (a cancel that met an auction waits for its end). */
  async function cancelledStatus(id: string): Promise<string> {
    for (let attempt = 0; attempt < 100; attempt++) {
      const { status } = await readOrder(id)
      if (status === 'CANCELLING' || status === 'CANCELLED') return status
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    return (await readOrder(id)).status
  }

  describe('POST /v2/delta/orders/build/cancellation', () => {
    it('returns OrderCancellations typed data under the orders’ chain’s Portikus domain', async () => {
      const order = await placeWaiting()
      const { toSign, hash } = await mustBuildCancellation([order.id])
      expect(toSign).toEqual({
        domain: { name: 'Portikus', version: '2.0.0', chainId: 1, verifyingContract: deltaAddress },
        types: { OrderCancellations: [{ name: 'orderIds', type: 'string[]' }] },
        value: { orderIds: [order.id] },
      })
      expect(hash).toMatch(/^0x[0-9a-f]{64}$/)
    })

    it('answers orderIds.length > 100 for 101 ids', async () => {
      const ids = Array.from({ length: 101 }, () => randomUUID())
      expectApiError(await buildCancellation(ids), 400, 'orderIds.length > 100')
    })

    it('answers Orders are not found for an unknown id', async () => {
      const order = await placeWaiting()
      expectApiError(await buildCancellation([order.id, randomUUID()]), 400, 'Orders are not found')
    })

    it('answers All orders must belong to the same user and chain for two owners', async () => {
      const [mine, theirs] = [await placeWaiting(alice()), await placeWaiting(bob())]
      expectApiError(await buildCancellation([mine.id, theirs.id]), 400, 'All orders must belong to the same user and chain')
    })

    it('answers All orders must belong to the same user and chain for two chains', async () => {
      const [onMainnet, onBase] = [await placeWaiting(alice(), 1), await placeWaiting(deltaWallet(sandbox(), 8453, 1), 8453)]
      expectApiError(await buildCancellation([onMainnet.id, onBase.id]), 400, 'All orders must belong to the same user and chain')
    })

    it('skips orders already cancelling, and answers All orders are already finalized when nothing is left', async () => {
      const [first, second] = [await placeWaiting(), await placeWaiting()]
      const { toSign } = await mustBuildCancellation([first.id])
      expect((await cancel([first.id], await signToSign(alice(), toSign))).status).toBe(200)
      await cancelledStatus(first.id)
      expect((await mustBuildCancellation([first.id, second.id])).toSign.value).toEqual({ orderIds: [second.id] })
      expectApiError(await buildCancellation([first.id]), 400, 'All orders are already finalized')
    })
  })

  describe('POST /v2/delta/orders/cancel', () => {
    it('cancels one order: it becomes CANCELLING, then CANCELLED once the relayer confirms', async () => {
      const order = await placeWaiting()
      const { toSign } = await mustBuildCancellation([order.id])
      const answer = await cancel([order.id], await signToSign(alice(), toSign))
      expect(answer.status, answer.text).toBe(200)
      expect(answer.json).toEqual({ cancelled: [order.id] })
      expect(['CANCELLING', 'CANCELLED']).toContain(await cancelledStatus(order.id))
      const history = sandbox()
        .delta.store.get(order.id)
        ?.history.map((entry) => entry.status)
      expect(history).toContain('CANCELLING')
    })

    it('cancels 100 orders in one call, with a 64-byte signature', async () => {
      const price = await mustPrice(sandbox(), sellUsdc())
      const deadline = sandboxNow(sandbox()) + 3600
      const orders = await Promise.all(
        Array.from({ length: 100 }, async () => {
          const { toSign } = await mustBuild(sandbox(), { route: price.route, side: 'SELL', owner: bob().account.address, deadline })
          const signature = await signToSign(bob(), toSign)
          const answer = await submitDelta(sandbox(), { chainId: 1, order: toSign.value, signature, partner: 'anon', ...noAgents })
          expect(answer.status, answer.text).toBe(200)
          return answer.json as DeltaOrderJson
        }),
      )
      const ids = orders.map((order) => order.id)
      const { toSign } = await mustBuildCancellation(ids)
      expect(toSign.value.orderIds).toEqual(ids)
      const answer = await cancel(ids, await signToSign(bob(), toSign, 64))
      expect(answer.status, answer.text).toBe(200)
      expect((answer.json as { cancelled: string[] }).cancelled).toEqual(ids)
      const statuses = new Set(await Promise.all(ids.map(cancelledStatus)))
      expect(
        [...statuses].every((status) => status === 'CANCELLING' || status === 'CANCELLED'),
        [...statuses].join(),
      ).toBe(true)
    })

    it('queues the cancel of an order whose auction is in flight instead of moving it to CANCELLING', async () => {
      const order = await placeResting()
      const stored = sandbox().delta.store.get(order.id)
      if (!stored) throw new Error('order not stored')
      stored.auctionInFlight = true
      const { toSign } = await mustBuildCancellation([order.id])
      expect((await cancel([order.id], await signToSign(alice(), toSign))).status).toBe(200)
      const statuses = stored.history.map((entry) => entry.status)
      expect({ cancelQueued: stored.cancelQueued, cancelling: statuses.includes('CANCELLING') }).toEqual({
        cancelQueued: true,
        cancelling: false,
      })
      stored.auctionInFlight = false
    })

    it('answers orderIds.length > 100 for 101 ids', async () => {
      const ids = Array.from({ length: 101 }, () => randomUUID())
      expectApiError(await cancel(ids, `0x${'11'.repeat(65)}`), 400, 'orderIds.length > 100')
    })

    it('answers Invalid signature for a cancellation signed under another chain’s domain', async () => {
      const order = await placeWaiting()
      const { toSign } = await mustBuildCancellation([order.id])
      const signature = await signToSign(alice(), { ...toSign, domain: { ...toSign.domain, chainId: 8453 } })
      expectApiError(await cancel([order.id], signature), 400, 'Invalid signature')
    })

    it('answers Invalid signature when someone other than the owner signed', async () => {
      const order = await placeWaiting()
      const { toSign } = await mustBuildCancellation([order.id])
      expectApiError(await cancel([order.id], await signToSign(bob(), toSign)), 400, 'Invalid signature')
    })

    it('answers Invalid signature when the ids differ from the signed payload', async () => {
      const [first, second] = [await placeWaiting(), await placeWaiting()]
      const { toSign } = await mustBuildCancellation([first.id])
      expectApiError(await cancel([first.id, second.id], await signToSign(alice(), toSign)), 400, 'Invalid signature')
    })

    it('answers Order already settled for a completed order', async () => {
      const order = await placeResting()
      const stored = sandbox().delta.store.get(order.id)
      if (!stored) throw new Error('order not stored')
      const { toSign } = await mustBuildCancellation([order.id])
      sandbox().delta.store.setStatus(stored, 'COMPLETED', sandbox().venue.clock.now(), 'settled for the test')
      expectApiError(await cancel([order.id], await signToSign(alice(), toSign)), 400, 'Order already settled')
    })
  })
})
