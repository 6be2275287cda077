import { ApiRequestError } from '../../api/errors.js'
import { BaseError } from '../../errors/base.js'

/** The executor met a state it cannot act on safely (e.g. a stored order whose payload cannot be resubmitted). */
export class ExecutorStateError extends BaseError {
  override name = 'ExecutorStateError'
}

/** A refusal the venue will repeat: the request itself is wrong (4xx other than rate limiting). */
export function isFinalRefusal(error: unknown): error is ApiRequestError {
  return error instanceof ApiRequestError && error.status >= 400 && error.status < 500 && error.status !== 429
}

/** The venue does not hold what was asked for. */
export function isNotFound(error: unknown): boolean {
  return error instanceof ApiRequestError && error.status === 404
}

/** First line of an error's message, for journal reasons. */
export function reasonOf(error: unknown): string {
  if (error instanceof BaseError) return `${error.name}: ${error.shortMessage}`
  if (error instanceof Error) return `${error.name}: ${error.message.split('\n')[0]}`
  return String(error)
}
