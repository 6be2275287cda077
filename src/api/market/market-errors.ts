import { ApiRequestError, type ServiceAnswer } from '../errors.js'

// Refusals of the Market endpoints (section 7 of the API document). All are operational: the request must change.

/** A token parameter is not a usable token; typically the native asset not sent as the mixed-case placeholder. */
export class InvalidTokenError extends ApiRequestError {
  override name = 'InvalidTokenError' as const
  constructor(answer: ServiceAnswer) {
    super(answer, {
      shortMessage: 'Invalid token',
      hint: 'Send the native asset as 0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE exactly in that mixed case (not 0x0, not lowercase), and other tokens as their addresses.',
    })
  }
}

/** The priceRoute sent to the transaction builder is not the one quoted: modified, re-encoded, or its hmac broken. */
export class InvalidPriceRouteError extends ApiRequestError {
  override name = 'InvalidPriceRouteError' as const
  constructor(answer: ServiceAnswer) {
    super(answer, {
      shortMessage: 'The priceRoute was refused: it differs from the quoted one',
      hint: "Send the priceRoute exactly as GET /prices returned it (deltaflow sends priceRoute.raw, the answer's own JSON); re-quote if it was stored or edited.",
    })
  }
}

/** The priceRoute is older than about 30 s. */
export class StalePriceRouteError extends ApiRequestError {
  override name = 'StalePriceRouteError' as const
  constructor(answer: ServiceAnswer) {
    super(answer, {
      shortMessage: 'The priceRoute is stale',
      hint: 'Re-quote (GET /prices) and build the transaction at once: a route expires about 30 s after the quote.',
    })
  }
}

/** The partner's tier does not allow the requested fee or surplus options, or a fee or surplus has no partnerAddress to go to. */
export class PartnerNotAllowedError extends ApiRequestError {
  override name = 'PartnerNotAllowedError' as const
  constructor(answer: ServiceAnswer) {
    super(answer, {
      shortMessage: 'Partner not allowed',
      hint: 'Send your registered partner name (the client’s `partner` option) with partnerAddress for partnerFeeBps or takeSurplus, or drop those options.',
    })
  }
}
