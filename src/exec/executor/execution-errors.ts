import { ApiRequestError } from '../../api/errors.js'
import { BaseError } from '../../errors/base.js'
import { withoutUrlSecrets } from '../../errors/url-secrets.js'

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

/**
 * An error that stopped an intent, for its journaled reason and its strategy's intent result: the error's name, its
 * class (retryable, operational, fatal) and code when it has them, and the first line of its message, e.g.
 * `ApiServerError (retryable): POST /v2/delta/orders failed on the service side (500)`. URLs keep only scheme and host:
 * credentials and keys in a URL's user part, path or query never reach the journal.
 */
export function failureReasonOf(error: unknown): string {
  if (!(error instanceof Error)) return withoutUrlSecrets(String(error)).slice(0, maxReasonLength)
  const tags: string[] = []
  if (error instanceof BaseError) tags.push(error.errorClass)
  const code = (error as { code?: unknown }).code
  if (typeof code === 'string' || typeof code === 'number') tags.push(`code ${code}`)
  const message = (error instanceof BaseError ? error.shortMessage : error.message).split('\n')[0]
  const reason = `${error.name}${tags.length > 0 ? ` (${tags.join(', ')})` : ''}: ${message}`
  return withoutUrlSecrets(reason).slice(0, maxReasonLength)
}

/** Characters of an error kept in a journaled reason. */
const maxReasonLength = 500
