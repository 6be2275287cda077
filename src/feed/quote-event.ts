import type { Quote, QuoteRequest } from './quote.js'

/** What a poll produced: a quote, or a failure after which polling goes on after `retryInMs`. */
export type QuoteEvent = QuoteReceivedEvent | QuoteFailedEvent

export type QuoteReceivedEvent = { type: 'quote'; key: string; quote: Quote }

export type QuoteFailedEvent = {
  type: 'error'
  key: string
  request: QuoteRequest
  /** As thrown by the API client (usually a BaseError with its errorClass). */
  error: unknown
  /** Consecutive failed polls of this request, this one included. */
  failures: number
  /** Backoff before the next poll may start, ms. */
  retryInMs: number
  /** Clock ms of the failure. */
  at: number
}
