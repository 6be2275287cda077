import { encodeAbiParameters, getAddress, type Hex, padHex, zeroAddress } from 'viem'
import { describe, expect, it } from 'vitest'
import { deltaAddress, nativeTokenPlaceholder } from '../../src/protocol/addresses.js'
import { packPartnerAndFee } from '../../src/protocol/partner-and-fee.js'
import {
  approveDelta,
  buildDelta,
  deltaToken,
  deltaWallet,
  expectApiError,
  mustBuild,
  mustPrice,
  noAgents,
  type PriceJson,
  sandboxNow,
  signToSign,
  submitDelta,
} from '../helpers/delta.js'
import { useSandbox } from '../helpers/sandbox.js'

/** A 224-byte EIP-2612 permit payload (its signature need not be valid for the build rules). */
const eip2612Permit: Hex = encodeAbiParameters(
  [
    { type: 'address' },
    { type: 'address' },
    { type: 'uint256' },
    { type: 'uint256' },
    { type: 'uint8' },
    { type: 'bytes32' },
    { type: 'bytes32' },
  ],
  [zeroAddress, deltaAddress, 1n, 2n ** 40n, 27, padHex('0x01'), padHex('0x02')],
)

describe('POST /v2/delta/orders/build', () => {
  const sandbox = useSandbox({ chainIds: [1], market: 'still' })
  const owner = () => deltaWallet(sandbox(), 1, 1)
  const sellUsdc = (amount = 1_000_000_000n) => mustPrice(sandbox(), { chainId: 1, src: 'USDC', dest: 'WETH', amount })
  const buildBody = (price: PriceJson, extra: Record<string, unknown> = {}) => ({
    route: price.route,
    side: price.side,
    owner: owner().account.address,
    deadline: sandboxNow(sandbox()) + 3600,
    ...extra,
  })

  describe('standard orders', () => {
    it('returns Portikus typed data without EIP712Domain, amounts as strings and numbers where the real service has them', async () => {
      const price = await sellUsdc()
      const deadline = sandboxNow(sandbox()) + 600
      const { toSign } = await mustBuild(sandbox(), buildBody(price, { deadline, slippage: 50 }))
      expect(toSign.domain).toEqual({ name: 'Portikus', version: '2.0.0', chainId: 1, verifyingContract: deltaAddress })
      expect(Object.keys(toSign.types).sort()).toEqual(['Bridge', 'Order'])
      const expected = BigInt(price.route.origin.output.amount)
      expect(toSign.value).toMatchObject({
        owner: owner().account.address,
        beneficiary: owner().account.address,
        srcToken: deltaToken(sandbox(), 1, 'USDC').address.toLowerCase(),
        destToken: deltaToken(sandbox(), 1, 'WETH').address.toLowerCase(),
        srcAmount: '1000000000',
        expectedAmount: expected.toString(),
        destAmount: ((expected * 9950n) / 10_000n).toString(),
        deadline,
        kind: 0,
        permit: '0x',
        metadata: '0x',
        bridge: { protocolSelector: '0x00000000', destinationChainId: 0, outputToken: zeroAddress, scalingFactor: 0, protocolData: '0x' },
      })
      expect(toSign.value.nonce).toMatch(/^\d+$/)
    })

    it('adds the slippage to the expected input of a BUY', async () => {
      const price = await mustPrice(sandbox(), { chainId: 1, src: 'USDC', dest: 'WETH', amount: 10n ** 18n, side: 'BUY' })
      const { toSign } = await mustBuild(sandbox(), buildBody(price, { slippage: 100 }))
      const expected = BigInt(price.route.origin.input.amount)
      expect(toSign.value).toMatchObject({
        kind: 1,
        destAmount: '1000000000000000000',
        expectedAmount: expected.toString(),
        srcAmount: ((expected * 10_100n + 9_999n) / 10_000n).toString(),
      })
    })

    it('gives every build of the same route its own nonce', async () => {
      const price = await sellUsdc()
      const first = await mustBuild(sandbox(), buildBody(price))
      const second = await mustBuild(sandbox(), buildBody(price))
      expect(first.toSign.value.nonce).not.toBe(second.toSign.value.nonce)
      expect(first.orderHash).not.toBe(second.orderHash)
    })

    it('packs partnerAndFee server-side from the partner fields', async () => {
      const partnerAddress = '0x00000000000000000000000000000000000000aa'
      const { toSign } = await mustBuild(
        sandbox(),
        buildBody(await sellUsdc(), { partnerAddress, partnerFeeBps: 50, partnerTakesSurplus: true }),
      )
      expect(toSign.value.partnerAndFee).toBe(
        packPartnerAndFee({ partner: partnerAddress, feeBps: 50, partnerTakesSurplus: true, capSurplus: true }).toString(),
      )
    })

    it('packs only capSurplus when no partner fields are sent, as the real service (512)', async () => {
      const { toSign } = await mustBuild(sandbox(), buildBody(await sellUsdc()))
      expect(toSign.value.partnerAndFee).toBe('512')
    })

    it('puts a permit payload into the order', async () => {
      const { toSign } = await mustBuild(sandbox(), buildBody(await sellUsdc(), { permit: eip2612Permit }))
      expect(toSign.value.permit).toBe(eip2612Permit)
    })

    it('builds an ExternalOrder with handler and data and without a bridge', async () => {
      const handler = '0x00000000000000000000000000000000000000bb'
      const { toSign } = await mustBuild(sandbox(), buildBody(await sellUsdc(), { orderType: 'ExternalOrder', handler, data: '0x1234' }))
      expect(Object.keys(toSign.types)).toEqual(['ExternalOrder'])
      expect(toSign.value).toMatchObject({ handler: getAddress(handler), data: '0x1234' })
      expect(toSign.value).not.toHaveProperty('bridge')
    })
  })

  describe('errors', () => {
    it('answers `route` validation failed when an amount of the route was edited', async () => {
      const price = await sellUsdc()
      const route = structuredClone(price.route)
      route.origin.output.amount = (BigInt(route.origin.output.amount) + 1n).toString()
      expectApiError(await buildDelta(sandbox(), buildBody(price, { route })), 400, 'route validation failed')
    })

    it('answers `route` validation failed when a numeric string was cast to a number', async () => {
      const price = await sellUsdc()
      const route = structuredClone(price.route) as unknown as { origin: { input: { amount: unknown } } }
      route.origin.input.amount = Number(route.origin.input.amount)
      expectApiError(await buildDelta(sandbox(), buildBody(price, { route })), 400, 'route validation failed')
    })

    it('answers `route` validation failed when the side differs from the quote', async () => {
      expectApiError(await buildDelta(sandbox(), buildBody(await sellUsdc(), { side: 'BUY' })), 400, 'route validation failed')
    })

    it('accepts the route with its keys in another order', async () => {
      const price = await sellUsdc()
      const { origin, destination, bridge, fees } = price.route
      const reordered = { fees, bridge, destination: { output: destination.output, input: destination.input }, origin }
      const answer = await buildDelta(sandbox(), buildBody(price, { route: reordered }))
      expect(answer.status, answer.text).toBe(200)
    })

    it('answers missing deadline without a deadline', async () => {
      const { deadline: _, ...body } = buildBody(await sellUsdc())
      expectApiError(await buildDelta(sandbox(), body), 400, 'missing deadline')
    })

    it('refuses a slippage above 10000 bps', async () => {
      const answer = await buildDelta(sandbox(), buildBody(await sellUsdc(), { slippage: 10_001 }))
      expect(answer.status).toBe(400)
      expect(answer.text).toContain('body.slippage')
    })

    it.each([
      ['the zero address', zeroAddress],
      ['the lowercase placeholder', nativeTokenPlaceholder.toLowerCase()],
    ])('answers Invalid srcToken for a native source quoted as %s', async (_, native) => {
      const price = await mustPrice(sandbox(), { chainId: 1, src: native, dest: 'USDC', amount: 10n ** 17n })
      expectApiError(await buildDelta(sandbox(), buildBody(price)), 400, 'Invalid srcToken')
    })

    it('builds a native source quoted with the mixed-case placeholder', async () => {
      const price = await mustPrice(sandbox(), { chainId: 1, src: nativeTokenPlaceholder, dest: 'USDC', amount: 10n ** 17n })
      const { toSign } = await mustBuild(sandbox(), buildBody(price))
      expect(toSign.value.srcToken).toBe(nativeTokenPlaceholder)
    })

    it('answers Permit / Permit2 required for a permit-only token without a permit', async () => {
      const price = await mustPrice(sandbox(), { chainId: 1, src: 'PUSD', dest: 'USDC', amount: 10n ** 20n })
      expectApiError(await buildDelta(sandbox(), buildBody(price)), 400, 'Permit / Permit2 required')
    })

    it('builds a permit-only token with an existing Permit2 allowance (0x01)', async () => {
      const price = await mustPrice(sandbox(), { chainId: 1, src: 'PUSD', dest: 'USDC', amount: 10n ** 20n })
      const { toSign } = await mustBuild(sandbox(), buildBody(price, { permit: '0x01' }))
      expect(toSign.value.permit).toBe('0x01')
    })

    it.each([
      ['orderType FillableOrder', { orderType: 'FillableOrder' }],
      ['type LIMIT', { type: 'LIMIT' }],
      ['partiallyFillable', { partiallyFillable: true }],
    ])('refuses a signed permit on a LIMIT order (%s)', async (_, extra) => {
      const answer = await buildDelta(sandbox(), buildBody(await sellUsdc(), { ...extra, permit: eip2612Permit }))
      expectApiError(answer, 400, 'LIMIT and TWAP orders must use an on-chain approval')
    })

    it('builds a LIMIT order on an on-chain approval', async () => {
      const answer = await buildDelta(sandbox(), buildBody(await sellUsdc(), { orderType: 'FillableOrder', permit: '0x' }))
      expect(answer.status, answer.text).toBe(200)
    })

    it('answers InvalidExternalOrderParams without handler and data', async () => {
      expectApiError(
        await buildDelta(sandbox(), buildBody(await sellUsdc(), { orderType: 'ExternalOrder' })),
        400,
        'InvalidExternalOrderParams',
      )
    })

    it('answers InvalidProductiveOrderParams without a strategy', async () => {
      expectApiError(
        await buildDelta(sandbox(), buildBody(await sellUsdc(), { orderType: 'ProductiveOrder' })),
        400,
        'InvalidProductiveOrderParams',
      )
    })
  })

  describe('TWAP', () => {
    const twap = { orderType: 'TWAPOrder', interval: 60, numSlices: 3, totalSrcAmount: '3000000001' }
    const twapBuy = {
      orderType: 'TWAPBuyOrder',
      interval: 60,
      numSlices: 3,
      totalDestAmount: '3000000000000000002',
      maxSrcAmount: '7000000000',
    }
    const buyWethSlice = () => mustPrice(sandbox(), { chainId: 1, src: 'USDC', dest: 'WETH', amount: 10n ** 18n, side: 'BUY' })

    it('builds a sell TWAP over a route quoting one slice', async () => {
      const price = await sellUsdc(1_000_000_000n)
      const { toSign } = await mustBuild(sandbox(), buildBody(price, { ...twap, slippage: 100 }))
      expect(Object.keys(toSign.types).sort()).toEqual(['Bridge', 'TWAPOrder'])
      expect(toSign.value).toMatchObject({
        interval: 60,
        numSlices: 3,
        totalSrcAmount: '3000000001',
        destAmountPerSlice: ((BigInt(price.route.origin.output.amount) * 9_900n) / 10_000n).toString(),
      })
    })

    it.each([
      ['interval is missing', { interval: undefined }],
      ['interval is below 60', { interval: 59 }],
      ['numSlices is below 2', { numSlices: 1 }],
      ['totalSrcAmount is missing', { totalSrcAmount: undefined }],
    ])('answers InvalidTWAPParams when %s', async (_, change) => {
      const answer = await buildDelta(sandbox(), buildBody(await sellUsdc(), { ...twap, ...change }))
      expectApiError(answer, 400, 'InvalidTWAPParams')
    })

    it('answers InvalidTWAPSrcAmount when the route does not quote floor(totalSrcAmount / numSlices)', async () => {
      const answer = await buildDelta(sandbox(), buildBody(await sellUsdc(), { ...twap, totalSrcAmount: '3000000003' }))
      expectApiError(answer, 400, 'InvalidTWAPSrcAmount')
    })

    it('builds a buy TWAP over a route quoting one slice of the destination', async () => {
      const { toSign } = await mustBuild(sandbox(), buildBody(await buyWethSlice(), twapBuy))
      expect(Object.keys(toSign.types).sort()).toEqual(['Bridge', 'TWAPBuyOrder'])
      expect(toSign.value).toMatchObject({ totalDestAmount: '3000000000000000002', maxSrcAmount: '7000000000', numSlices: 3 })
    })

    it.each([
      ['maxSrcAmount is missing', { maxSrcAmount: undefined }],
      ['totalDestAmount is missing', { totalDestAmount: undefined }],
      ['numSlices is missing', { numSlices: undefined }],
    ])('answers InvalidTWAPBuyParams when %s', async (_, change) => {
      expectApiError(await buildDelta(sandbox(), buildBody(await buyWethSlice(), { ...twapBuy, ...change })), 400, 'InvalidTWAPBuyParams')
    })

    it('answers InvalidTWAPBuyDestAmount when the route does not quote floor(totalDestAmount / numSlices)', async () => {
      const answer = await buildDelta(sandbox(), buildBody(await buyWethSlice(), { ...twapBuy, totalDestAmount: '6000000000000000000' }))
      expectApiError(answer, 400, 'InvalidTWAPBuyDestAmount')
    })

    it('refuses a signed permit on a TWAP', async () => {
      const answer = await buildDelta(sandbox(), buildBody(await sellUsdc(), { ...twap, permit: eip2612Permit }))
      expectApiError(answer, 400, 'LIMIT and TWAP orders must use an on-chain approval')
    })
  })

  describe('TWAP submission', () => {
    const wallet = () => deltaWallet(sandbox(), 1, 2)
    const usdc = () => deltaToken(sandbox(), 1, 'USDC').address

    /** Builds a sell TWAP of 3 slices with `deadlineIn` seconds, signs `value` after `edit`, and submits it. */
    async function submitTwap(deadlineIn: number, edit: (value: Record<string, unknown>) => void = () => {}) {
      const price = await sellUsdc(1_000_000_000n)
      const { toSign } = await mustBuild(sandbox(), {
        route: price.route,
        side: 'SELL',
        owner: wallet().account.address,
        deadline: sandboxNow(sandbox()) + deadlineIn,
        orderType: 'TWAPOrder',
        interval: 60,
        numSlices: 3,
        totalSrcAmount: '3000000000',
      })
      edit(toSign.value)
      const signature = await signToSign(wallet(), toSign)
      return submitDelta(sandbox(), { chainId: 1, order: toSign.value, signature, partner: 'anon', ...noAgents })
    }

    it('accepts a TWAP with room for every slice, as a TWAPOrder', async () => {
      await approveDelta(wallet(), usdc())
      const answer = await submitTwap(3600)
      expect(answer.status, answer.text).toBe(200)
      expect(answer.json).toMatchObject({ onChainOrderType: 'TWAPOrder', side: 'SELL', input: { amount: '3000000000' } })
    })

    it('answers that the deadline must allow enough time for all slices when it is before now + numSlices x interval', async () => {
      await approveDelta(wallet(), usdc())
      expectApiError(await submitTwap(150), 400, 'deadline must allow enough time for all slices to execute')
    })

    it('answers totalSrcAmount must be >= numSlices when a slice would be 0 wei', async () => {
      await approveDelta(wallet(), usdc())
      const answer = await submitTwap(3600, (value) => {
        value.totalSrcAmount = '2'
      })
      expectApiError(answer, 400, 'totalSrcAmount must be >= numSlices')
    })

    it.each([
      ['totalDestAmount', { totalDestAmount: '2' }, 'totalDestAmount must be >= numSlices'],
      ['maxSrcAmount', { maxSrcAmount: '2' }, 'maxSrcAmount must be >= numSlices'],
    ])('answers %s must be >= numSlices for a buy TWAP', async (_, change, error) => {
      await approveDelta(wallet(), usdc())
      const price = await mustPrice(sandbox(), { chainId: 1, src: 'USDC', dest: 'WETH', amount: 10n ** 18n, side: 'BUY' })
      const { toSign } = await mustBuild(sandbox(), {
        route: price.route,
        side: 'BUY',
        owner: wallet().account.address,
        deadline: sandboxNow(sandbox()) + 3600,
        orderType: 'TWAPBuyOrder',
        interval: 60,
        numSlices: 3,
        totalDestAmount: '3000000000000000000',
        maxSrcAmount: '7000000000',
      })
      Object.assign(toSign.value, change)
      const signature = await signToSign(wallet(), toSign)
      expectApiError(await submitDelta(sandbox(), { chainId: 1, order: toSign.value, signature, partner: 'anon' }), 400, error)
    })
  })
})
