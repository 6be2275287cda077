import { ApiRequestError, type ServiceAnswer } from '../errors.js'

// Refusals of the Delta V2 endpoints (section 7 of the API document). All are operational: the request must change.

/** The route sent to the build differs from the quoted one (edited, re-encoded, numbers cast, other side). */
export class RouteValidationFailedError extends ApiRequestError {
  override name = 'RouteValidationFailedError' as const
  constructor(answer: ServiceAnswer) {
    super(answer, {
      shortMessage: 'The route was refused: it differs from the quoted one',
      hint: "Build with the route and side of the Delta price (GET /v2/delta/prices or /v2/quote) unmodified (deltaflow sends route.raw, the answer's own JSON); re-quote if the route was stored or edited.",
    })
  }
}

/** The build request has no deadline. */
export class MissingDeadlineError extends ApiRequestError {
  override name = 'MissingDeadlineError' as const
  constructor(answer: ServiceAnswer) {
    super(answer, { shortMessage: 'The build needs a deadline', hint: 'Send `deadline` in unix seconds.' })
  }
}

/** A TWAP build misses interval (>= 60 s), numSlices (>= 2) or the totals (InvalidTWAPParams, InvalidTWAPBuyParams). */
export class InvalidTwapParamsError extends ApiRequestError {
  override name = 'InvalidTwapParamsError' as const
  constructor(answer: ServiceAnswer) {
    super(answer, {
      shortMessage: 'Invalid TWAP parameters',
      hint: 'A sell TWAP needs side SELL, interval >= 60, numSlices >= 2 and totalSrcAmount; a buy TWAP needs side BUY, interval, numSlices, totalDestAmount and maxSrcAmount.',
    })
  }
}

/** The route of a TWAP build does not quote exactly one slice (InvalidTWAPSrcAmount, InvalidTWAPBuyDestAmount). */
export class InvalidTwapSliceAmountError extends ApiRequestError {
  override name = 'InvalidTwapSliceAmountError' as const
  constructor(answer: ServiceAnswer) {
    super(answer, {
      shortMessage: 'The route does not quote one TWAP slice',
      hint: 'Quote one slice: a sell TWAP with amount = floor(totalSrcAmount / numSlices), a buy TWAP (side BUY) with amount = floor(totalDestAmount / numSlices); build with that route.',
    })
  }
}

/** An ExternalOrder build without handler and data. */
export class InvalidExternalOrderParamsError extends ApiRequestError {
  override name = 'InvalidExternalOrderParamsError' as const
  constructor(answer: ServiceAnswer) {
    super(answer, {
      shortMessage: 'Invalid ExternalOrder parameters',
      hint: 'An ExternalOrder needs `handler` (address) and `data` (bytes), over a same-chain route.',
    })
  }
}

/** A ProductiveOrder build without a strategy. */
export class InvalidProductiveOrderParamsError extends ApiRequestError {
  override name = 'InvalidProductiveOrderParamsError' as const
  constructor(answer: ServiceAnswer) {
    super(answer, {
      shortMessage: 'Invalid ProductiveOrder parameters',
      hint: 'A ProductiveOrder needs `strategy`: a vault the service lists for the chain (GET /v2/delta/prices/strategies/{chainId}).',
    })
  }
}

/** The native asset was quoted as 0x0 or as the lowercase placeholder, so the build refuses the route. */
export class InvalidSrcTokenError extends ApiRequestError {
  override name = 'InvalidSrcTokenError' as const
  constructor(answer: ServiceAnswer) {
    super(answer, {
      shortMessage: 'Invalid srcToken',
      hint: 'Quote the native asset as 0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE exactly in that mixed case, then re-quote and build.',
    })
  }
}

/** The source token cannot be approved: it moves only through a permit, and none was attached (section 5.6). */
export class PermitRequiredError extends ApiRequestError {
  override name = 'PermitRequiredError' as const
  constructor(answer: ServiceAnswer) {
    super(answer, {
      shortMessage: 'This token needs a permit',
      hint: 'The token cannot be approved: attach an EIP-2612 or Permit2 permit for the Delta contract as `permit` of the build (0x01 uses an existing Permit2 allowance).',
    })
  }
}

/** A signed permit on a LIMIT or TWAP order, which settle over time (section 5.6). */
export class PermitNotAllowedError extends ApiRequestError {
  override name = 'PermitNotAllowedError' as const
  constructor(answer: ServiceAnswer) {
    super(answer, {
      shortMessage: 'LIMIT and TWAP orders need an on-chain approval',
      hint: 'Approve the Delta contract on-chain and build with permit 0x (or 0x01 for an existing Permit2 allowance), not a signed permit.',
    })
  }
}

/** An order id of a cancellation is unknown, or not a Delta V2 order. */
export class OrdersNotFoundError extends ApiRequestError {
  override name = 'OrdersNotFoundError' as const
  constructor(answer: ServiceAnswer) {
    super(answer, {
      shortMessage: 'Orders not found',
      hint: "Use the ids of the account's Delta orders (`deltaflow orders`, or GET /v2/delta/orders); only Delta V2 orders can be cancelled.",
    })
  }
}

/** A cancellation mixes owners or source chains. */
export class MixedOrdersError extends ApiRequestError {
  override name = 'MixedOrdersError' as const
  constructor(answer: ServiceAnswer) {
    super(answer, {
      shortMessage: 'All orders must belong to the same user and chain',
      hint: 'Group the orders by owner and source chain and cancel each group in its own call.',
    })
  }
}

/** Every order of the cancellation is already final or CANCELLING. */
export class OrdersAlreadyFinalizedError extends ApiRequestError {
  override name = 'OrdersAlreadyFinalizedError' as const
  constructor(answer: ServiceAnswer) {
    super(answer, {
      shortMessage: 'All orders are already finalized',
      hint: 'Nothing to cancel: read the orders (`deltaflow order <id>`, or GET /v2/delta/orders/{id}) for their final status.',
    })
  }
}

/** More than 100 order ids in one cancellation call (section 8). */
export class TooManyOrderIdsError extends ApiRequestError {
  override name = 'TooManyOrderIdsError' as const
  constructor(answer: ServiceAnswer) {
    super(answer, {
      shortMessage: 'More than 100 order ids',
      hint: 'Send at most 100 order ids per call; chunk larger batches.',
    })
  }
}

/** A TWAP deadline earlier than now + numSlices x interval. */
export class TwapDeadlineTooShortError extends ApiRequestError {
  override name = 'TwapDeadlineTooShortError' as const
  constructor(answer: ServiceAnswer) {
    super(answer, {
      shortMessage: 'The TWAP deadline leaves too little time for all slices',
      hint: 'Build again with a deadline later than now + numSlices x interval seconds.',
    })
  }
}

/** A TWAP total (totalSrcAmount, totalDestAmount, maxSrcAmount) below numSlices: a slice would be 0 wei. */
export class TwapSliceTooSmallError extends ApiRequestError {
  override name = 'TwapSliceTooSmallError' as const
  constructor(answer: ServiceAnswer) {
    super(answer, {
      shortMessage: 'A TWAP slice would be 0 wei',
      hint: 'Raise the total or lower numSlices so that every slice is at least 1 wei.',
    })
  }
}

/** A cancelled order is already COMPLETED, REFUNDING, REFUNDED, FAILED, EXPIRED or CANCELLED. */
export class OrderAlreadySettledError extends ApiRequestError {
  override name = 'OrderAlreadySettledError' as const
  constructor(answer: ServiceAnswer) {
    super(answer, {
      shortMessage: 'Order already settled',
      hint: 'The order can no longer be cancelled; read it (`deltaflow order <id>`) for its final state and cancel only the open ones.',
    })
  }
}

/**
 * Delta cannot take this amount: the gas an agent spends to settle it is worth more than the trade
 * (`GasCostExceedsTradeAmount`). Operational: trade a larger amount or use Market; the unified quote in mode ALL
 * falls back to Market for the same reason.
 */
export class GasCostExceedsTradeAmountError extends ApiRequestError {
  override name = 'GasCostExceedsTradeAmountError' as const
  constructor(answer: ServiceAnswer) {
    super(answer, {
      shortMessage: 'Delta cannot take this amount: its settlement gas is worth more than the trade',
      hint: 'Trade a larger amount through Delta, or use Market for this size (getQuote with mode ALL falls back to it).',
    })
  }
}
