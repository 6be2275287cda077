import { randomUUID } from 'node:crypto'
import { encodeAbiParameters, type Hex, padHex, parseUnits, zeroAddress } from 'viem'
import { beforeAll, describe, expect, it } from 'vitest'
import { buildDeltaCancellation } from '../../src/api/delta/build-delta-cancellation.js'
import { type BuildDeltaOrderParameters, buildDeltaOrder } from '../../src/api/delta/build-delta-order.js'
import { cancelDeltaOrders } from '../../src/api/delta/cancel-delta-orders.js'
import {
  InvalidExternalOrderParamsError,
  InvalidProductiveOrderParamsError,
  InvalidSrcTokenError,
  InvalidTwapParamsError,
  InvalidTwapSliceAmountError,
  MissingDeadlineError,
  MixedOrdersError,
  OrderAlreadySettledError,
  OrdersAlreadyFinalizedError,
  OrdersNotFoundError,
  PermitNotAllowedError,
  PermitRequiredError,
  RouteValidationFailedError,
  TooManyOrderIdsError,
  TwapDeadlineTooShortError,
  TwapSliceTooSmallError,
} from '../../src/api/delta/delta-errors.js'
import type { DeltaOrder } from '../../src/api/delta/delta-order-schema.js'
import { getDeltaOrder } from '../../src/api/delta/get-delta-order.js'
import { type GetDeltaPricesParameters, getDeltaPrices } from '../../src/api/delta/get-delta-prices.js'
import { submitDeltaOrder } from '../../src/api/delta/submit-delta-order.js'
import type { ApiRequestError } from '../../src/api/errors.js'
import {
  InsufficientAllowanceError,
  InsufficientBalanceError,
  InvalidSignatureError,
  NoRouteError,
  OrderExpiredError,
  OrderNotFoundError,
  PriceImpactTooHighError,
  TokenNotSupportedError,
  UnsupportedChainError,
} from '../../src/api/service-errors.js'
import { deltaAddress, nativeTokenPlaceholder } from '../../src/protocol/addresses.js'
import { isFinalDeltaStatus } from '../../src/protocol/delta-status.js'
import { approveDelta } from '../helpers/delta.js'
import { type SandboxWallet, sandboxToken, sandboxWallet, useSandbox } from '../helpers/sandbox.js'
import { noAgents, sandboxClient, sandboxSeconds, signToSign } from './delta-flow.js'

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

/** The refusal `promise` ends with: it must be an instance of `type`, operational, and carry the service's message. */
async function refusal<T extends ApiRequestError>(
  promise: Promise<unknown>,
  type: abstract new (...args: never[]) => T,
  message: string,
): Promise<T> {
  const error = await promise.then(
    () => new Error('expected the service to refuse the request'),
    (reason: unknown) => reason,
  )
  expect(error).toBeInstanceOf(type)
  const refused = error as T
  expect(refused.errorClass).toBe('operational')
  expect(refused.serviceMessage).toBe(message)
  expect(refused.details).toMatchObject({ endpoint: refused.endpoint, status: refused.status, message })
  expect(refused.hint).toBeTruthy()
  return refused
}

describe('Delta refusals as typed errors (section 7)', () => {
  const sandbox = useSandbox({ chainIds: [1, 8453], speed: 60 })
  const api = () => sandboxClient(sandbox())
  const token = (symbol: string) => sandboxToken(sandbox(), 1, symbol)
  const owner = () => sandboxWallet(sandbox(), 1, 1)
  const quote = (overrides: Partial<GetDeltaPricesParameters> = {}) =>
    getDeltaPrices(api(), {
      chainId: 1,
      srcToken: token('USDC').address,
      destToken: token('WETH').address,
      amount: 100_000_000n,
      srcDecimals: 6,
      destDecimals: 18,
      ...overrides,
    })
  const deadline = () => sandboxSeconds(sandbox()) + 3_600

  /** Builds over a fresh quote with the given fields. */
  async function build(fields: Partial<BuildDeltaOrderParameters> = {}, priceFields: Partial<GetDeltaPricesParameters> = {}) {
    const price = await quote(priceFields)
    return buildDeltaOrder(api(), { route: price.route, side: price.side, owner: owner().account.address, deadline: deadline(), ...fields })
  }

  /** Builds, signs with `signer` (default the owner) and submits. */
  async function place(
    wallet: SandboxWallet,
    fields: Partial<BuildDeltaOrderParameters> = {},
    priceFields: Partial<GetDeltaPricesParameters> = {},
  ) {
    const price = await quote(priceFields)
    const built = await buildDeltaOrder(api(), {
      route: price.route,
      side: price.side,
      owner: wallet.account.address,
      deadline: deadline(),
      ...fields,
    })
    const signature = await signToSign(wallet, built.toSign)
    return submitDeltaOrder(api(), { chainId: 1, order: built.toSign.value, signature, excludeAgents: noAgents })
  }

  async function waitForFinal(id: string): Promise<DeltaOrder> {
    for (let polls = 0; ; polls++) {
      const order = await getDeltaOrder(api(), { orderId: id })
      if (isFinalDeltaStatus(order.status)) return order
      if (polls > 300) throw new Error(`order ${id} still ${order.status}`)
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  }

  beforeAll(async () => {
    for (const index of [1, 2]) await approveDelta(sandboxWallet(sandbox(), 1, index), token('USDC').address)
    await approveDelta(sandboxWallet(sandbox(), 1, 2), token('WETH').address)
  })

  describe('GET /v2/delta/prices', () => {
    it('throws NoRouteError for decimals that are not the token’s', async () => {
      const error = await refusal(quote({ srcDecimals: 18 }), NoRouteError, 'No route')
      expect(error.details.details).toContain('srcDecimals')
    })

    it('throws TokenNotSupportedError for a token the chain does not list', async () => {
      await refusal(quote({ srcToken: '0x00000000000000000000000000000000000000ab' }), TokenNotSupportedError, 'Token not supported')
    })

    it('throws UnsupportedChainError (422) for a chain without Delta', async () => {
      const error = await refusal(quote({ chainId: 100 }), UnsupportedChainError, 'Unsupported chain')
      expect(error.status).toBe(422)
    })

    it('throws PriceImpactTooHighError when the impact is above maxImpact', async () => {
      await refusal(
        quote({ amount: parseUnits('500000', 6), maxImpact: 0.01 }),
        PriceImpactTooHighError,
        'ESTIMATED_LOSS_GREATER_THAN_MAX_IMPACT',
      )
    })
  })

  describe('POST /v2/delta/orders/build', () => {
    it('throws RouteValidationFailedError when the side differs from the quote', async () => {
      const price = await quote()
      const built = buildDeltaOrder(api(), { route: price.route, side: 'BUY', owner: owner().account.address, deadline: deadline() })
      await refusal(built, RouteValidationFailedError, 'route validation failed')
    })

    it('throws MissingDeadlineError without a deadline', async () => {
      const price = await quote()
      // @ts-expect-error the type requires a deadline; this checks what the service answers without one
      const built = buildDeltaOrder(api(), { route: price.route, side: price.side, owner: owner().account.address })
      await refusal(built, MissingDeadlineError, 'missing deadline')
    })

    it('throws InvalidTwapParamsError for a sell TWAP without an interval', async () => {
      await refusal(
        build({ orderType: 'TWAPOrder', numSlices: 3, totalSrcAmount: 300_000_000n }),
        InvalidTwapParamsError,
        'InvalidTWAPParams',
      )
    })

    it('throws InvalidTwapParamsError for a buy TWAP without maxSrcAmount', async () => {
      const built = build(
        { orderType: 'TWAPBuyOrder', interval: 60, numSlices: 3, totalDestAmount: 3n * 10n ** 17n },
        { amount: 10n ** 17n, side: 'BUY' },
      )
      await refusal(built, InvalidTwapParamsError, 'InvalidTWAPBuyParams')
    })

    it('throws InvalidTwapSliceAmountError when the route does not quote one slice', async () => {
      const built = build({ orderType: 'TWAPOrder', interval: 60, numSlices: 3, totalSrcAmount: 900_000_000n })
      await refusal(built, InvalidTwapSliceAmountError, 'InvalidTWAPSrcAmount')
    })

    it('throws InvalidExternalOrderParamsError without handler and data', async () => {
      await refusal(build({ orderType: 'ExternalOrder' }), InvalidExternalOrderParamsError, 'InvalidExternalOrderParams')
    })

    it('throws InvalidProductiveOrderParamsError without a strategy', async () => {
      await refusal(build({ orderType: 'ProductiveOrder' }), InvalidProductiveOrderParamsError, 'InvalidProductiveOrderParams')
    })

    it('throws InvalidSrcTokenError for a native source quoted as the zero address', async () => {
      const built = build(
        {},
        { srcToken: zeroAddress, srcDecimals: 18, destToken: token('USDC').address, destDecimals: 6, amount: 10n ** 17n },
      )
      const error = await refusal(built, InvalidSrcTokenError, 'Invalid srcToken')
      expect(error.hint).toContain(nativeTokenPlaceholder)
    })

    it('throws PermitRequiredError for a token that can only move through a permit', async () => {
      const built = build(
        {},
        { srcToken: token('PUSD').address, srcDecimals: 18, destToken: token('USDC').address, destDecimals: 6, amount: 10n ** 20n },
      )
      const error = await refusal(built, PermitRequiredError, 'Permit / Permit2 required')
      expect(error.hint).toContain('cannot be approved')
    })

    it('throws PermitNotAllowedError for a signed permit on a TWAP', async () => {
      const built = build({ orderType: 'TWAPOrder', interval: 60, numSlices: 3, totalSrcAmount: 300_000_000n, permit: eip2612Permit })
      await refusal(built, PermitNotAllowedError, 'LIMIT and TWAP orders must use an on-chain approval')
    })
  })

  describe('POST /v2/delta/orders', () => {
    it('throws InvalidSignatureError when someone else signed', async () => {
      const built = await build()
      const signature = await signToSign(sandboxWallet(sandbox(), 1, 5), built.toSign)
      const submitted = submitDeltaOrder(api(), { chainId: 1, order: built.toSign.value, signature })
      const error = await refusal(submitted, InvalidSignatureError, 'Invalid signature')
      expect(error.hint).toContain('buildDeltaOrder')
    })

    it('throws OrderExpiredError when the deadline has passed', async () => {
      await refusal(place(owner(), { deadline: sandboxSeconds(sandbox()) - 60 }), OrderExpiredError, 'Order expired')
    })

    it('throws InsufficientAllowanceError naming the Delta contract when it is not approved', async () => {
      const error = await refusal(
        place(sandboxWallet(sandbox(), 1, 3), {}, { srcToken: token('DAI').address, srcDecimals: 18, amount: 10n ** 20n }),
        InsufficientAllowanceError,
        'InsufficientAllowance',
      )
      expect(error.mode).toBe('delta')
      expect(error.hint).toContain('Delta contract')
      expect(error.hint).toContain('not the Market router')
    })

    it('throws InsufficientBalanceError when the owner holds less than the order sells', async () => {
      const error = await refusal(
        place(owner(), {}, { amount: parseUnits('1000001', 6), maxImpact: 100 }),
        InsufficientBalanceError,
        'InsufficientBalance',
      )
      expect(error.details.details).toContain('below')
    })

    it('throws TwapDeadlineTooShortError when the deadline leaves no time for every slice', async () => {
      const twap = { orderType: 'TWAPOrder', interval: 60, numSlices: 3, totalSrcAmount: 300_000_000n } as const
      const submitted = place(owner(), { ...twap, deadline: sandboxSeconds(sandbox()) + 150 })
      await refusal(submitted, TwapDeadlineTooShortError, 'deadline must allow enough time for all slices to execute')
    })

    it('throws TwapSliceTooSmallError when a slice would be 0 wei', async () => {
      const built = await build({ orderType: 'TWAPOrder', interval: 60, numSlices: 3, totalSrcAmount: 300_000_000n })
      const toSign = { ...built.toSign, value: { ...built.toSign.value, totalSrcAmount: '2' } }
      const signature = await signToSign(owner(), toSign)
      const submitted = submitDeltaOrder(api(), { chainId: 1, order: toSign.value, signature })
      await refusal(submitted, TwapSliceTooSmallError, 'totalSrcAmount must be >= numSlices')
    })
  })

  describe('cancellation', () => {
    const tooMany = () => Array.from({ length: 101 }, () => randomUUID())

    it('throws OrdersNotFoundError for an unknown order id', async () => {
      await refusal(buildDeltaCancellation(api(), { orderIds: [randomUUID()] }), OrdersNotFoundError, 'Orders are not found')
    })

    it('throws MixedOrdersError for orders of two owners', async () => {
      const mine = await place(owner())
      const theirs = await place(sandboxWallet(sandbox(), 1, 2))
      await refusal(
        buildDeltaCancellation(api(), { orderIds: [mine.id, theirs.id] }),
        MixedOrdersError,
        'All orders must belong to the same user and chain',
      )
    })

    it('throws TooManyOrderIdsError for more than 100 ids, on build and on cancel', async () => {
      await refusal(buildDeltaCancellation(api(), { orderIds: tooMany() }), TooManyOrderIdsError, 'orderIds.length > 100')
      await refusal(
        cancelDeltaOrders(api(), { orderIds: tooMany(), signature: `0x${'11'.repeat(65)}` }),
        TooManyOrderIdsError,
        'orderIds.length > 100',
      )
    })

    it('throws InvalidSignatureError for a cancellation signed by someone else', async () => {
      const order = await place(owner())
      const { toSign } = await buildDeltaCancellation(api(), { orderIds: [order.id] })
      const signature = await signToSign(sandboxWallet(sandbox(), 1, 5), toSign)
      const error = await refusal(cancelDeltaOrders(api(), { orderIds: [order.id], signature }), InvalidSignatureError, 'Invalid signature')
      expect(error.hint).toContain('buildDeltaCancellation')
    })

    it('throws OrdersAlreadyFinalizedError once every order is cancelled, and OrderAlreadySettledError on cancel', async () => {
      const order = await place(owner())
      const { toSign } = await buildDeltaCancellation(api(), { orderIds: [order.id] })
      const signature = await signToSign(owner(), toSign)
      await cancelDeltaOrders(api(), { orderIds: [order.id], signature })
      expect((await waitForFinal(order.id)).status).toBe('CANCELLED')
      await refusal(
        buildDeltaCancellation(api(), { orderIds: [order.id] }),
        OrdersAlreadyFinalizedError,
        'All orders are already finalized',
      )
      await refusal(cancelDeltaOrders(api(), { orderIds: [order.id], signature }), OrderAlreadySettledError, 'Order already settled')
    })

    it('throws OrderAlreadySettledError for a completed order', async () => {
      const wallet = sandboxWallet(sandbox(), 1, 2)
      const price = await quote({
        srcToken: token('WETH').address,
        srcDecimals: 18,
        destToken: token('USDC').address,
        destDecimals: 6,
        amount: 10n ** 17n,
      })
      const built = await buildDeltaOrder(api(), {
        route: price.route,
        side: price.side,
        owner: wallet.account.address,
        deadline: deadline(),
      })
      const order = await submitDeltaOrder(api(), {
        chainId: 1,
        order: built.toSign.value,
        signature: await signToSign(wallet, built.toSign),
      })
      expect((await waitForFinal(order.id)).status).toBe('COMPLETED')
      // The cancellation build refuses a finalized order, so the OrderCancellations payload is signed by hand.
      const signature = await signToSign(wallet, {
        ...built.toSign,
        primaryType: 'OrderCancellations',
        types: { OrderCancellations: [{ name: 'orderIds', type: 'string[]' }] },
        value: { orderIds: [order.id] },
      })
      await refusal(cancelDeltaOrders(api(), { orderIds: [order.id], signature }), OrderAlreadySettledError, 'Order already settled')
    })
  })

  describe('reads', () => {
    it('throws OrderNotFoundError for an unknown order id', async () => {
      const error = await refusal(getDeltaOrder(api(), { orderId: randomUUID() }), OrderNotFoundError, 'Order not found')
      expect(error.status).toBe(404)
    })
  })
})
