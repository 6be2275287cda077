import { ApiRequestError, type ServiceAnswer } from './errors.js'

// Refusals that more than one mode answers (section 7 of the API document). Each says what the user does next.

/** Which execution mode an endpoint belongs to: decides the spender a refusal's hint names (section 5.4). */
export type TradingMode = 'delta' | 'market' | 'otc'

export function tradingModeOf(endpoint: string): TradingMode {
  if (endpoint.includes('/ft/')) return 'otc'
  if (endpoint.includes('/v2/')) return 'delta'
  return 'market'
}

/** The service knows no route for this pair and amount. Operational: change the amount, tokens or filters, then re-quote. */
export class NoRouteError extends ApiRequestError {
  override name = 'NoRouteError' as const
  constructor(answer: ServiceAnswer) {
    super(answer, {
      shortMessage: 'No route for this swap',
      hint:
        tradingModeOf(answer.endpoint) === 'delta'
          ? 'Check that srcDecimals / destDecimals are the tokens’ decimals, try a smaller amount, and for a crosschain quote another destination token or fewer bridge filters.'
          : 'Try a smaller amount, or relax includeDEXS / excludeDEXS / route / contract-method filters.',
    })
  }
}

/** A token is not whitelisted on the chain. Operational: pick a supported token. */
export class TokenNotSupportedError extends ApiRequestError {
  override name = 'TokenNotSupportedError' as const
  constructor(answer: ServiceAnswer) {
    super(answer, {
      shortMessage: 'Token not supported on this chain',
      hint: 'Use a token the service lists for the chain (GET /tokens/{chainId}); the native asset is 0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE.',
    })
  }
}

/** The chain (or, on the Delta prices endpoint, a token) is not supported. Operational: pick a supported chain. */
export class UnsupportedChainError extends ApiRequestError {
  override name = 'UnsupportedChainError' as const
  constructor(answer: ServiceAnswer) {
    super(answer, {
      shortMessage: 'Unsupported chain',
      hint:
        tradingModeOf(answer.endpoint) === 'delta'
          ? 'Delta runs only on chains whose getContracts entry has a `delta` role; check the chain ids and tokens of the request.'
          : 'GET /chains (getChains) and /resources/contracts.json (getContracts) list the supported chains.',
    })
  }
}

/** The signature does not match the signed payload, signer or domain. Operational: sign again exactly what was returned. */
export class InvalidSignatureError extends ApiRequestError {
  override name = 'InvalidSignatureError' as const
  constructor(answer: ServiceAnswer) {
    super(answer, { shortMessage: 'Invalid signature', hint: invalidSignatureHint(answer.endpoint) })
  }
}

function invalidSignatureHint(endpoint: string): string {
  if (endpoint.endsWith('/cancel'))
    return 'Sign the toSign of buildDeltaCancellation unmodified (same chain and domain) with the orders’ owner key, and send the same orderIds.'
  if (tradingModeOf(endpoint) === 'otc')
    return 'Sign the order with the maker’s key under the RFQ domain of the chain in the path ("AUGUSTUS RFQ", version 1, the chain’s RFQ contract), exactly as posted.'
  return 'Sign toSign of buildDeltaOrder exactly as returned with the owner’s key, and submit toSign.value verbatim as `order` on the same chainId.'
}

/** The order's deadline (or expiry) has passed. Operational: re-quote and sign a new order. */
export class OrderExpiredError extends ApiRequestError {
  override name = 'OrderExpiredError' as const
  constructor(answer: ServiceAnswer) {
    super(answer, {
      shortMessage: 'Order expired',
      hint:
        tradingModeOf(answer.endpoint) === 'otc'
          ? 'Sign a new order with a later expiry (0 never expires).'
          : 'Re-quote and rebuild with a later deadline, then sign and submit at once.',
    })
  }
}

/**
 * The owner's allowance to the mode's spender is below the amount. Operational: approve the right spender; the
 * spender is never interchangeable between modes (section 5.4).
 */
export class InsufficientAllowanceError extends ApiRequestError {
  override name = 'InsufficientAllowanceError' as const
  /** The mode whose spender must be approved. */
  readonly mode: TradingMode
  constructor(answer: ServiceAnswer) {
    const mode = tradingModeOf(answer.endpoint)
    super(answer, { shortMessage: 'Insufficient allowance', hint: allowanceHints[mode] })
    this.mode = mode
  }
}

const allowanceHints: Readonly<Record<TradingMode, string>> = {
  delta:
    'Approve the Delta contract (the `spender` of the Delta price, `delta` in getContracts) for the source token — not the Market router. A USDT-style token needs approve(0) first.',
  market:
    'Approve the Market router v6.2 (the `to` of the built transaction, priceRoute.tokenTransferProxy) for the source token — not the Delta contract. A USDT-style token needs approve(0) first.',
  otc: 'Approve the RFQ contract of the chain (`augustusRFQ` in getContracts) for the maker asset.',
}

/** The owner holds less than the order needs. Operational: fund the account or trade less. */
export class InsufficientBalanceError extends ApiRequestError {
  override name = 'InsufficientBalanceError' as const
  constructor(answer: ServiceAnswer) {
    super(answer, {
      shortMessage: 'Insufficient balance',
      hint:
        tradingModeOf(answer.endpoint) === 'delta'
          ? 'Fund the owner with the source amount, or trade less; a native Delta source must first be deposited into the Delta contract.'
          : 'Fund userAddress with the source amount (plus gas), or trade less.',
    })
  }
}

/** The quote's price impact is above maxImpact / maxUSDImpact. Operational: trade less or accept more impact. */
export class PriceImpactTooHighError extends ApiRequestError {
  override name = 'PriceImpactTooHighError' as const
  constructor(answer: ServiceAnswer) {
    super(answer, {
      shortMessage: 'Price impact above the allowed maximum',
      hint: 'Trade a smaller amount, or pass a higher maxImpact (percent) if the loss is acceptable.',
    })
  }
}

/** No order with that id or hash. Operational: use the id the submission returned. */
export class OrderNotFoundError extends ApiRequestError {
  override name = 'OrderNotFoundError' as const
  constructor(answer: ServiceAnswer) {
    super(answer, {
      shortMessage: 'Order not found',
      hint: 'Use the id or hash the submission returned, on the same service (a sandbox forgets its orders when it stops).',
    })
  }
}
