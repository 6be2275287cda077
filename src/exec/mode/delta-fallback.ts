import type { FallbackReason } from '../../api/get-quote.js'
import { BaseError } from '../../errors/base.js'

/**
 * The service's unified quote (mode ALL) fell back to Market because Delta could not price the trade, although a
 * separate Delta price was answered. Operational: Delta is treated as unavailable for this trade, so it is not chosen.
 */
export class DeltaFallbackError extends BaseError {
  override name = 'DeltaFallbackError' as const
  readonly fallbackReason: FallbackReason

  constructor(fallbackReason: FallbackReason) {
    const why = [fallbackReason.errorType, fallbackReason.details].filter((part) => part !== undefined).join(': ')
    super(`the service fell back to Market: Delta cannot price this trade${why ? ` (${why})` : ''}`, {
      details: { ...fallbackReason },
      hint: fallbackReason.gasCostExceedsTradeAmount
        ? 'Delta’s settlement gas is worth more than the trade: trade a larger amount through Delta, or let Market take it.'
        : 'Let Market take this trade, or quote Delta again later.',
      errorClass: 'operational',
    })
    this.fallbackReason = fallbackReason
  }
}
