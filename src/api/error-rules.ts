import {
  GasCostExceedsTradeAmountError,
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
} from './delta/delta-errors.js'
import { gasCostExceedsTradeAmountTexts } from './delta/delta-price-refusal.js'
import { ApiRequestError, ApiServerError, RateLimitedError, type ServiceAnswer } from './errors.js'
import { InvalidPriceRouteError, InvalidTokenError, PartnerNotAllowedError, StalePriceRouteError } from './market/market-errors.js'
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
} from './service-errors.js'

type Rule = {
  /**
   * Texts the service's message starts with, compared case-insensitively: the quotes of section 7 (the service may
   * append details after them), the sandbox's wording of the same refusal, and error codes of the OpenAPI envelope.
   */
  messages: readonly string[]
  /** Only for endpoints starting with one of these ("POST /v2/delta/"); all endpoints when absent. */
  endpoints?: readonly string[]
  create: (answer: ServiceAnswer) => ApiRequestError
}

const rules: readonly Rule[] = [
  { messages: ['No route'], create: (answer) => new NoRouteError(answer) },
  { messages: ['Token not supported', 'TokenNotSupported'], create: (answer) => new TokenNotSupportedError(answer) },
  { messages: ['Unsupported chain', 'UnsupportedChain'], create: (answer) => new UnsupportedChainError(answer) },
  { messages: ['route validation failed'], create: (answer) => new RouteValidationFailedError(answer) },
  { messages: ['missing deadline'], create: (answer) => new MissingDeadlineError(answer) },
  { messages: ['InvalidTWAPParams', 'InvalidTWAPBuyParams'], create: (answer) => new InvalidTwapParamsError(answer) },
  { messages: ['InvalidTWAPSrcAmount', 'InvalidTWAPBuyDestAmount'], create: (answer) => new InvalidTwapSliceAmountError(answer) },
  { messages: ['InvalidExternalOrderParams'], create: (answer) => new InvalidExternalOrderParamsError(answer) },
  { messages: ['InvalidProductiveOrderParams'], create: (answer) => new InvalidProductiveOrderParamsError(answer) },
  // The same words mean a wrongly spelled native asset in both modes; the Delta build names the class of its row.
  { messages: ['Invalid srcToken'], endpoints: ['POST /v2/delta/'], create: (answer) => new InvalidSrcTokenError(answer) },
  { messages: ['Invalid srcToken', 'Invalid destToken'], create: (answer) => new InvalidTokenError(answer) },
  { messages: ['Permit / Permit2 required'], create: (answer) => new PermitRequiredError(answer) },
  { messages: ['LIMIT and TWAP orders must use an on-chain approval'], create: (answer) => new PermitNotAllowedError(answer) },
  { messages: ['Orders are not found'], create: (answer) => new OrdersNotFoundError(answer) },
  { messages: ['All orders must belong to the same user and chain'], create: (answer) => new MixedOrdersError(answer) },
  { messages: ['All orders are already finalized'], create: (answer) => new OrdersAlreadyFinalizedError(answer) },
  { messages: ['orderIds.length > 100'], create: (answer) => new TooManyOrderIdsError(answer) },
  { messages: ['Invalid signature', 'InvalidSignature'], create: (answer) => new InvalidSignatureError(answer) },
  { messages: ['Order expired'], create: (answer) => new OrderExpiredError(answer) },
  // Delta writes the section 7 codes; the Market transaction checks say it in words.
  { messages: ['InsufficientAllowance', 'Not enough allowance'], create: (answer) => new InsufficientAllowanceError(answer) },
  { messages: ['InsufficientBalance', 'Not enough balance'], create: (answer) => new InsufficientBalanceError(answer) },
  { messages: ['deadline must allow enough time'], create: (answer) => new TwapDeadlineTooShortError(answer) },
  {
    messages: ['totalSrcAmount must be >= numSlices', 'totalDestAmount must be >= numSlices', 'maxSrcAmount must be >= numSlices'],
    create: (answer) => new TwapSliceTooSmallError(answer),
  },
  { messages: ['Order already settled'], create: (answer) => new OrderAlreadySettledError(answer) },
  { messages: ['Invalid priceRoute'], create: (answer) => new InvalidPriceRouteError(answer) },
  { messages: ['Stale priceRoute', 'StalePriceRoute'], create: (answer) => new StalePriceRouteError(answer) },
  { messages: ['Partner not allowed', 'PartnerNotAllowed'], create: (answer) => new PartnerNotAllowedError(answer) },
  { messages: ['ESTIMATED_LOSS_GREATER_THAN_MAX_IMPACT'], create: (answer) => new PriceImpactTooHighError(answer) },
  { messages: gasCostExceedsTradeAmountTexts, create: (answer) => new GasCostExceedsTradeAmountError(answer) },
  { messages: ['Order not found'], create: (answer) => new OrderNotFoundError(answer) },
]

/** Endpoints whose 422 means "unsupported chain or token" whatever the text (section 4.1). */
const unsupportedOn422 = ['GET /v2/delta/prices', 'GET /v2/quote']

/**
 * The typed error of a refused request: 429 and 5xx by status alone (their bodies may be empty or not JSON), other
 * statuses by the service's message as section 7 quotes it; a refusal no rule knows stays an ApiRequestError.
 */
export function toApiRequestError(answer: ServiceAnswer): ApiRequestError {
  if (answer.status === 429) return new RateLimitedError(answer)
  // 408: the service gave up waiting for the request's body; sent again in full, it goes through.
  if (answer.status >= 500 || answer.status === 408) return new ApiServerError(answer)
  const message = answer.message?.trim().toLowerCase()
  if (message) {
    for (const rule of rules) {
      if (rule.endpoints && !rule.endpoints.some((prefix) => answer.endpoint.startsWith(prefix))) continue
      if (rule.messages.some((text) => message.startsWith(text.toLowerCase()))) return rule.create(answer)
    }
  }
  if (answer.status === 422 && unsupportedOn422.includes(answer.endpoint)) return new UnsupportedChainError(answer)
  return new ApiRequestError(answer)
}
