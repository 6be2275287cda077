import { BaseError } from '../errors/base.js'

/** A request the feed cannot send as asked (e.g. a crosschain Market quote). Operational: fix the request. */
export class InvalidQuoteRequestError extends BaseError {
  override name = 'InvalidQuoteRequestError' as const
  constructor(shortMessage: string, details: Record<string, unknown>) {
    super(shortMessage, { details, errorClass: 'operational', hint: 'Change the quote request in the strategy or its config.' })
  }
}

/** No decimals known for a token of a request. Operational: list the token (chain, address, decimals). */
export class UnknownTokenDecimalsError extends BaseError {
  override name = 'UnknownTokenDecimalsError' as const
  constructor(chainId: number, token: string) {
    super('the decimals of a quoted token are unknown', {
      details: { chainId, token },
      errorClass: 'operational',
      hint: 'Add the token with its decimals to the token list given to the feed.',
    })
  }
}

/**
 * A strategy asked the feed for quotes of a request the feed was not created with. Fatal: the bot must build the feed
 * from every request its strategies declare.
 */
export class UnknownQuoteRequestError extends BaseError {
  override name = 'UnknownQuoteRequestError' as const
  constructor(key: string, known: readonly string[]) {
    super('quotes asked for a request the feed does not poll', {
      details: { key, known: known.length <= 10 ? known : [...known.slice(0, 10), `... ${known.length - 10} more`] },
      errorClass: 'fatal',
      hint: 'Create the feed with the requests of every strategy before subscribing.',
    })
  }
}
