import { describe, expect, it } from 'vitest'
import { toApiRequestError } from '../../src/api/error-rules.js'
import type { ServiceAnswer } from '../../src/api/errors.js'

const answer = (endpoint: string, status: number, message: string | undefined, extra: ServiceAnswer['extra'] = {}): ServiceAnswer => ({
  endpoint,
  path: '/',
  status,
  message,
  extra,
})

const prices = 'GET /v2/delta/prices'
const build = 'POST /v2/delta/orders/build'
const cancellation = 'POST /v2/delta/orders/build/cancellation'
const submit = 'POST /v2/delta/orders'
const cancel = 'POST /v2/delta/orders/cancel'
const marketPrices = 'GET /prices'
const transactions = 'POST /transactions/{chainId}'

describe('toApiRequestError', () => {
  // Every row of section 7 of the API document, as quoted there.
  it.each([
    [prices, 400, 'No route', 'NoRouteError'],
    [prices, 400, 'Token not supported', 'TokenNotSupportedError'],
    [prices, 422, 'Unsupported chain', 'UnsupportedChainError'],
    [build, 400, 'route validation failed', 'RouteValidationFailedError'],
    [build, 400, 'missing deadline', 'MissingDeadlineError'],
    [build, 400, 'InvalidTWAPParams', 'InvalidTwapParamsError'],
    [build, 400, 'InvalidTWAPBuyParams', 'InvalidTwapParamsError'],
    [build, 400, 'InvalidTWAPSrcAmount', 'InvalidTwapSliceAmountError'],
    [build, 400, 'InvalidTWAPBuyDestAmount', 'InvalidTwapSliceAmountError'],
    [build, 400, 'InvalidExternalOrderParams', 'InvalidExternalOrderParamsError'],
    [build, 400, 'InvalidProductiveOrderParams', 'InvalidProductiveOrderParamsError'],
    [build, 400, 'Invalid srcToken', 'InvalidSrcTokenError'],
    [build, 400, 'Permit / Permit2 required', 'PermitRequiredError'],
    [cancellation, 400, 'Orders are not found', 'OrdersNotFoundError'],
    [cancellation, 400, 'All orders must belong to the same user and chain', 'MixedOrdersError'],
    [cancellation, 400, 'All orders are already finalized', 'OrdersAlreadyFinalizedError'],
    [cancellation, 400, 'orderIds.length > 100', 'TooManyOrderIdsError'],
    [submit, 400, 'Invalid signature', 'InvalidSignatureError'],
    [submit, 400, 'Order expired', 'OrderExpiredError'],
    [submit, 400, 'InsufficientAllowance', 'InsufficientAllowanceError'],
    [submit, 400, 'InsufficientBalance', 'InsufficientBalanceError'],
    [submit, 400, 'deadline must allow enough time for all slices to execute', 'TwapDeadlineTooShortError'],
    [submit, 400, 'totalSrcAmount must be >= numSlices', 'TwapSliceTooSmallError'],
    [submit, 400, 'totalDestAmount must be >= numSlices', 'TwapSliceTooSmallError'],
    [submit, 400, 'maxSrcAmount must be >= numSlices', 'TwapSliceTooSmallError'],
    [cancel, 400, 'Invalid signature', 'InvalidSignatureError'],
    [cancel, 400, 'Order already settled', 'OrderAlreadySettledError'],
    [cancel, 400, 'orderIds.length > 100', 'TooManyOrderIdsError'],
    [marketPrices, 400, 'Invalid srcToken', 'InvalidTokenError'],
    [marketPrices, 400, 'Invalid destToken', 'InvalidTokenError'],
    [marketPrices, 422, 'Unsupported chain', 'UnsupportedChainError'],
    [marketPrices, 429, 'Too Many Requests', 'RateLimitedError'],
    [transactions, 400, 'Invalid priceRoute', 'InvalidPriceRouteError'],
    [transactions, 400, 'Stale priceRoute', 'StalePriceRouteError'],
    [transactions, 422, 'Partner not allowed', 'PartnerNotAllowedError'],
  ])('maps %s %i "%s" to %s', (endpoint, status, message, name) => {
    expect(toApiRequestError(answer(endpoint, status, message)).name).toBe(name)
  })

  it('matches a section 7 text followed by details, in any case', () => {
    expect(toApiRequestError(answer(transactions, 400, 'Stale priceRoute: it was quoted 31.0 s ago')).name).toBe('StalePriceRouteError')
    expect(toApiRequestError(answer(build, 400, 'Route validation failed')).name).toBe('RouteValidationFailedError')
  })

  it('reads the error codes of the OpenAPI envelope ({ errorType, details })', () => {
    expect(toApiRequestError(answer(transactions, 400, 'StalePriceRoute', { details: 'older than 30 s' })).name).toBe(
      'StalePriceRouteError',
    )
    expect(toApiRequestError(answer('POST /ft/p2p/{chainId}/', 400, 'InvalidSignature')).name).toBe('InvalidSignatureError')
    expect(toApiRequestError(answer(marketPrices, 422, 'UnsupportedChain')).name).toBe('UnsupportedChainError')
  })

  it('reads 429 and 5xx by their status alone', () => {
    expect(toApiRequestError(answer(submit, 429, undefined))).toMatchObject({ name: 'RateLimitedError', errorClass: 'retryable' })
    expect(toApiRequestError(answer(submit, 503, 'No route'))).toMatchObject({ name: 'ApiServerError', errorClass: 'retryable' })
  })

  it('reads any 422 of the Delta price endpoints as an unsupported chain or token', () => {
    expect(toApiRequestError(answer(prices, 422, 'unsupported token on chain 10')).name).toBe('UnsupportedChainError')
    expect(toApiRequestError(answer('GET /v2/quote', 422, undefined)).name).toBe('UnsupportedChainError')
  })

  it('gives the spender of the endpoint’s mode in the allowance hint', () => {
    const delta = toApiRequestError(answer(submit, 400, 'InsufficientAllowance'))
    const market = toApiRequestError(answer(transactions, 400, 'Not enough allowance for 0x6a00...'))
    expect(delta).toMatchObject({ name: 'InsufficientAllowanceError', mode: 'delta' })
    expect(delta.hint).toMatch(/Approve the Delta contract/)
    expect(market).toMatchObject({ name: 'InsufficientAllowanceError', mode: 'market' })
    expect(market.hint).toMatch(/Approve the Market router v6\.2/)
  })

  it('keeps an unknown refusal as an operational ApiRequestError carrying the service message', () => {
    const error = toApiRequestError(answer(marketPrices, 400, 'Invalid decimals: srcDecimals is required', { details: 'x' }))
    expect(error).toMatchObject({
      name: 'ApiRequestError',
      errorClass: 'operational',
      serviceMessage: 'Invalid decimals: srcDecimals is required',
    })
    expect(error.details).toEqual({
      endpoint: marketPrices,
      path: '/',
      status: 400,
      message: 'Invalid decimals: srcDecimals is required',
      details: 'x',
    })
  })
})
