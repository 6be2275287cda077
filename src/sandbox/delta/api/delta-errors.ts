import { ApiError, type ApiErrorSpec, defineApiErrors } from '../../server/api-error.js'

const prices = 'GET /v2/delta/prices'
const build = 'POST /v2/delta/orders/build'
const buildCancellation = 'POST /v2/delta/orders/build/cancellation'
const submit = 'POST /v2/delta/orders'
const cancel = 'POST /v2/delta/orders/cancel'

/** Every error of the `/v2/delta/...` endpoints, with the message texts of section 7 of the API document. */
export const deltaErrors = defineApiErrors({
  unsupportedChain: {
    endpoint: `${prices}, ${build}, ${submit}`,
    status: 422,
    message: 'Unsupported chain',
    cause: 'The chain is not running in this sandbox, or it has no Delta contract (as chain 100 in production).',
    fix: 'Read /resources/contracts.json: Delta works on the chains whose entry has a `delta` role.',
  },
  unsupportedChainOnRead: {
    endpoint: 'GET /v2/delta/agents/list/{chainId}, GET /v2/delta/orders/fillablebalance/..., GET /v2/delta/prices/strategies/{chainId}',
    status: 400,
    message: 'Unsupported chain',
    cause: 'The chain is not running in this sandbox, or it has no Delta contract.',
    fix: 'Use a chain whose /resources/contracts.json entry has a `delta` role.',
  },
  noRoute: {
    endpoint: prices,
    status: 400,
    message: 'No route',
    cause: 'No pool liquidity for the pair, decimals that differ from the tokens, or (crosschain) no active bridge lane for the tokens.',
    fix: 'Check srcDecimals / destDecimals, the amount, the bridge filters, and allowBridgeAndSwap (forced false for BUY).',
  },
  tokenNotSupported: {
    endpoint: prices,
    status: 400,
    message: 'Token not supported',
    cause: 'A token is not whitelisted on its chain.',
    fix: 'Use a token of the sandbox (the `tokens` of `deltaflow sandbox --json`), or the native placeholder.',
  },
  gasCostExceedsTradeAmount: {
    endpoint: `${prices}, GET /v2/quote`,
    status: 400,
    message: 'Gas cost exceeds trade amount',
    cause:
      'The gas an agent spends to settle the order (`fees.gas`) is worth at least as much as the trade. The body also carries ' +
      'the real service\'s `errorType: "GasCostExceedsTradeAmount"` and `details`; GET /v2/quote with mode=ALL falls back to Market ' +
      'with them as `fallbackReason`.',
    fix: 'Trade a larger amount, or use Market (mode=MARKET or ALL).',
  },
  maxImpact: {
    endpoint: prices,
    status: 400,
    message: 'ESTIMATED_LOSS_GREATER_THAN_MAX_IMPACT',
    cause: 'The price impact of the quote exceeds maxImpact (percent, default 15) or maxUSDImpact (USD); `value` says by how much.',
    fix: 'Trade a smaller amount or pass a higher maxImpact / maxUSDImpact.',
  },
  routeValidation: {
    endpoint: build,
    status: 400,
    message: 'route validation failed',
    cause:
      'The route is not exactly one GET /v2/delta/prices returned: mutated, re-encoded, numeric strings cast to numbers, or a side that differs from the quote.',
    fix: 'Pass `route` and `side` of the price response back unmodified.',
  },
  missingDeadline: {
    endpoint: build,
    status: 400,
    message: 'missing deadline',
    cause: 'The build request has no `deadline`.',
    fix: 'Send `deadline` in unix seconds.',
  },
  invalidTwapParams: {
    endpoint: build,
    status: 400,
    message: 'InvalidTWAPParams',
    cause: 'A TWAPOrder needs side SELL, `interval` >= 60, `numSlices` >= 2 and `totalSrcAmount`.',
    fix: 'Send the missing TWAP fields.',
  },
  invalidTwapBuyParams: {
    endpoint: build,
    status: 400,
    message: 'InvalidTWAPBuyParams',
    cause: 'A TWAPBuyOrder needs side BUY, `interval` >= 60, `numSlices` >= 2, `totalDestAmount` and `maxSrcAmount`.',
    fix: 'Send the missing TWAP fields.',
  },
  invalidTwapSrcAmount: {
    endpoint: build,
    status: 400,
    message: 'InvalidTWAPSrcAmount',
    cause: 'route.origin.input.amount differs from floor(totalSrcAmount / numSlices).',
    fix: 'Quote one slice: amount = floor(totalSrcAmount / numSlices).',
  },
  invalidTwapBuyDestAmount: {
    endpoint: build,
    status: 400,
    message: 'InvalidTWAPBuyDestAmount',
    cause: 'route.origin.output.amount differs from floor(totalDestAmount / numSlices).',
    fix: 'Quote one slice (side BUY): amount = floor(totalDestAmount / numSlices).',
  },
  invalidExternalOrderParams: {
    endpoint: build,
    status: 400,
    message: 'InvalidExternalOrderParams',
    cause: 'An ExternalOrder needs `handler` (address) and `data` (bytes), and cannot be crosschain.',
    fix: 'Send handler and data with a same-chain route.',
  },
  invalidProductiveOrderParams: {
    endpoint: build,
    status: 400,
    message: 'InvalidProductiveOrderParams',
    cause: 'A ProductiveOrder needs a `strategy` listed by GET /v2/delta/prices/strategies/{chainId}; the sandbox has none.',
    fix: 'Use another order type in the sandbox.',
  },
  invalidSrcToken: {
    endpoint: build,
    status: 400,
    message: 'Invalid srcToken',
    cause: 'The native asset was quoted as 0x0 or as a lowercase placeholder.',
    fix: 'Quote the native asset as 0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE, exactly in that mixed case.',
  },
  permitRequired: {
    endpoint: build,
    status: 400,
    message: 'Permit / Permit2 required',
    cause: 'The source token can only move through a permit or Permit2 (PUSD in the sandbox) and no `permit` was attached.',
    fix: 'Attach an EIP-2612 or Permit2 payload, or 0x01 for an existing Permit2 allowance.',
  },
  permitNotAllowed: {
    endpoint: `${build}, ${submit}`,
    status: 400,
    message: 'LIMIT and TWAP orders must use an on-chain approval',
    cause: 'A LIMIT (FillableOrder, partially fillable) or TWAP order carries a signed permit; they settle over time.',
    fix: 'Approve the Delta contract on-chain (permit 0x) or use an existing Permit2 allowance (permit 0x01).',
  },
  tooManyOrderIds: {
    endpoint: `${buildCancellation}, ${cancel}`,
    status: 400,
    message: 'orderIds.length > 100',
    cause: 'More than 100 order ids in one call.',
    fix: 'Chunk into batches of 100 or fewer.',
  },
  ordersNotFound: {
    endpoint: `${buildCancellation}, ${cancel}`,
    status: 400,
    message: 'Orders are not found',
    cause: 'An orderId is unknown or not a Delta V2 order.',
    fix: 'Take the ids from GET /v2/delta/orders.',
  },
  mixedOrders: {
    endpoint: `${buildCancellation}, ${cancel}`,
    status: 400,
    message: 'All orders must belong to the same user and chain',
    cause: 'The batch mixes owners or source chains.',
    fix: 'Group orders by owner and source chain; one call per group.',
  },
  allFinalized: {
    endpoint: buildCancellation,
    status: 400,
    message: 'All orders are already finalized',
    cause: 'Every order is COMPLETED, FAILED, EXPIRED, CANCELLED, REFUNDED or already CANCELLING.',
    fix: 'Nothing to cancel.',
  },
  invalidSignature: {
    endpoint: submit,
    status: 400,
    message: 'Invalid signature',
    cause:
      'The signature does not recover to order.owner over the Portikus domain of chainId (nor does the owner contract accept it through EIP-1271).',
    fix: 'Sign toSign (domain, types, value) of the build exactly and send value verbatim as `order`.',
  },
  invalidCancelSignature: {
    endpoint: cancel,
    status: 400,
    message: 'Invalid signature',
    cause: 'The signature is not the owner’s over OrderCancellations{orderIds} under the orders’ chain’s Portikus domain.',
    fix: 'Sign the toSign of POST /v2/delta/orders/build/cancellation unmodified and send the same orderIds.',
  },
  orderExpired: {
    endpoint: submit,
    status: 400,
    message: 'Order expired',
    cause: 'The order’s deadline has passed (sandbox time).',
    fix: 'Re-quote and rebuild with a later deadline.',
  },
  twapDeadline: {
    endpoint: submit,
    status: 400,
    message: 'deadline must allow enough time for all slices to execute',
    cause: 'TWAP deadline earlier than now + numSlices x interval.',
    fix: 'Build with a later deadline.',
  },
  twapTotalSrc: {
    endpoint: submit,
    status: 400,
    message: 'totalSrcAmount must be >= numSlices',
    cause: 'A slice would round to 0 wei.',
    fix: 'Raise the total or lower numSlices.',
  },
  twapTotalDest: {
    endpoint: submit,
    status: 400,
    message: 'totalDestAmount must be >= numSlices',
    cause: 'A slice would round to 0 wei.',
    fix: 'Raise the total or lower numSlices.',
  },
  twapMaxSrc: {
    endpoint: submit,
    status: 400,
    message: 'maxSrcAmount must be >= numSlices',
    cause: 'A slice would round to 0 wei.',
    fix: 'Raise the total or lower numSlices.',
  },
  insufficientAllowance: {
    endpoint: submit,
    status: 400,
    message: 'InsufficientAllowance',
    cause:
      'The owner’s allowance to the Delta contract (or, with permit 0x01, to Permit2 and Permit2’s to Delta) is below the order’s source amount.',
    fix: 'Approve the Delta contract (the `spender` of the price), not the Market router.',
  },
  insufficientBalance: {
    endpoint: submit,
    status: 400,
    message: 'InsufficientBalance',
    cause: 'The owner holds less source token than the order needs (native source: the deposit in the Delta contract).',
    fix: 'Fund the owner, or for a native source deposit into the Delta contract first.',
  },
  orderAlreadySettled: {
    endpoint: cancel,
    status: 400,
    message: 'Order already settled',
    cause: 'An order is COMPLETED, REFUNDING, REFUNDED, FAILED, EXPIRED, CANCELLED, or BRIDGING (its source leg is filled).',
    fix: 'Cancel only PENDING, AWAITING_SIGNATURE, ACTIVE or SUSPENDED orders.',
  },
  orderNotFound: {
    endpoint: 'GET /v2/delta/orders/{orderId}, GET /v2/delta/orders/hash/{hash}',
    status: 404,
    message: 'Order not found',
    cause: 'No Delta order with that id or hash in this sandbox run.',
    fix: 'Use the id returned by POST /v2/delta/orders.',
  },
})

/**
 * The error with its exact documented message (clients match it as quoted) and, in `details`, what was wrong with
 * this request.
 */
export function deltaError(spec: ApiErrorSpec, details?: string, extra: Record<string, unknown> = {}): ApiError {
  return new ApiError(spec, { extra: details === undefined ? extra : { ...extra, details } })
}
