import { BaseError, type ErrorClass } from '../errors/base.js'

/** What the service answered to a refused request, as the error classes carry it (never the API key or the host). */
export type ServiceAnswer = {
  /** The endpoint as the API document names it, e.g. "POST /v2/delta/orders". */
  endpoint: string
  /** The requested path, without host and query string. */
  path: string
  status: number
  /** The service's error text: `error` of the JSON body (or `errorType` of the OpenAPI envelope); undefined without one. */
  message: string | undefined
  /** The other short fields of the error body (`details`, `value`, ...). */
  extra: Readonly<Record<string, string | number | boolean | null>>
  /** Milliseconds the Retry-After header asked to wait. */
  retryAfterMs?: number | undefined
}

export type ApiRequestErrorOptions = {
  shortMessage?: string | undefined
  hint?: string | undefined
  errorClass?: ErrorClass | undefined
}

/**
 * The service refused the request (status 4xx or 5xx). Base of every refusal the client recognises, so
 * `error instanceof ApiRequestError` catches them all. A refusal the client does not recognise is thrown as this class:
 * the bot treats a 4xx as operational (the request must change) and a 5xx as retryable.
 */
export class ApiRequestError extends BaseError {
  override name: string = 'ApiRequestError'
  readonly endpoint: string
  readonly status: number
  /** The service's own error text, unmodified. */
  readonly serviceMessage: string | undefined

  constructor(answer: ServiceAnswer, options: ApiRequestErrorOptions = {}) {
    super(
      options.shortMessage ?? `${answer.endpoint} refused the request (${answer.status})${answer.message ? `: ${answer.message}` : ''}`,
      {
        details: detailsOf(answer),
        hint: options.hint ?? 'Read the service message in the details and correct the request.',
        errorClass: options.errorClass ?? (answer.status >= 500 ? 'retryable' : 'operational'),
      },
    )
    this.endpoint = answer.endpoint
    this.status = answer.status
    this.serviceMessage = answer.message
  }
}

function detailsOf(answer: ServiceAnswer): Record<string, unknown> {
  return {
    endpoint: answer.endpoint,
    path: answer.path,
    status: answer.status,
    ...(answer.message === undefined ? {} : { message: answer.message }),
    ...answer.extra,
    ...(answer.retryAfterMs === undefined ? {} : { retryAfterMs: answer.retryAfterMs }),
  }
}

/**
 * The service failed on its side (5xx), or gave up waiting for the request (408). Retryable: the client already retried
 * with backoff before throwing it.
 */
export class ApiServerError extends ApiRequestError {
  override name = 'ApiServerError' as const
  readonly retryAfterMs: number | undefined

  constructor(answer: ServiceAnswer) {
    super(answer, {
      shortMessage:
        answer.status === 408
          ? `${answer.endpoint} timed out at the service before the request arrived in full (408)`
          : `${answer.endpoint} failed on the service side (${answer.status})`,
      hint: 'The client retried with backoff and the service kept failing; try again later, and report the endpoint and time if it persists.',
      errorClass: 'retryable',
    })
    this.retryAfterMs = answer.retryAfterMs
  }
}

/**
 * 429: the free-tier limit or the plan quota is exhausted. Retryable: the client already waited (Retry-After, or
 * backoff) and retried; the bot backs off further before the next call.
 */
export class RateLimitedError extends ApiRequestError {
  override name = 'RateLimitedError' as const
  readonly retryAfterMs: number | undefined

  constructor(answer: ServiceAnswer) {
    super(answer, {
      shortMessage: `${answer.endpoint} is rate limited (429)`,
      hint:
        answer.retryAfterMs === undefined
          ? 'Slow down: lower rateLimit.requestsPerSecond of the API client, or use a paid partner account with higher limits.'
          : `Wait ${Math.ceil(answer.retryAfterMs / 1000)} s (Retry-After) before the next call; lower rateLimit.requestsPerSecond or use a paid partner account with higher limits.`,
      errorClass: 'retryable',
    })
    this.retryAfterMs = answer.retryAfterMs
  }
}

/**
 * A 2xx answer the client cannot read: not JSON, or not the documented shape (an older API version, a changed field).
 * Fatal: retrying does not change the shape; the bot stops the unit of work and reports it.
 */
export class ApiResponseError extends BaseError {
  override name = 'ApiResponseError' as const
  readonly endpoint: string
  /** One line per bad field: `priceRoute.destAmount: expected a decimal integer string, received 12.5`. */
  readonly problems: readonly string[]

  constructor({ endpoint, status, problems, cause }: { endpoint: string; status?: number; problems: readonly string[]; cause?: unknown }) {
    const shown = problems.slice(0, 5).join('; ')
    const more = problems.length > 5 ? ` (and ${problems.length - 5} more)` : ''
    super(`Unexpected answer from ${endpoint}: ${shown}${more}`, {
      details: { endpoint, ...(status === undefined ? {} : { status }) },
      hint: 'The service answered in a shape this client does not read. Check that baseUrl points at the Delta V2 / Market v6.2 API; report the answer if it persists.',
      errorClass: 'fatal',
      cause,
    })
    this.endpoint = endpoint
    this.problems = problems
  }
}

/**
 * A 2xx answer whose body is empty or not JSON (cut off in transit, a proxy's garbage). Retryable, like a 5xx: the
 * client already retried; a submission retried this way is answered with the order stored for its signed hash, so no
 * second order is made. Fatal shapes (JSON that is not the documented one) are ApiResponseError instead.
 */
export class ApiMalformedAnswerError extends BaseError {
  override name = 'ApiMalformedAnswerError' as const
  readonly endpoint: string
  readonly status: number
  /** The start of the body as received (at most 120 characters), JSON-quoted; `""` for an empty one. */
  readonly excerpt: string

  constructor({
    endpoint,
    path,
    status,
    excerpt,
    cause,
  }: { endpoint: string; path: string; status: number; excerpt: string; cause?: unknown }) {
    super(`${endpoint} answered ${status} with ${excerpt === '""' ? 'an empty body' : 'a body that is not JSON'}`, {
      details: { endpoint, path, status, received: excerpt },
      hint: 'The answer was cut off or garbled on its way (a proxy, a dropped connection); the client retried. If it persists, check that baseUrl points at the API and not at a web page.',
      errorClass: 'retryable',
      cause,
    })
    this.endpoint = endpoint
    this.status = status
    this.excerpt = excerpt
  }
}

/** No answer within the client's timeout. Retryable: the client already retried; the bot tries again later. */
export class ApiTimeoutError extends BaseError {
  override name = 'ApiTimeoutError' as const
  readonly endpoint: string

  constructor({ endpoint, path, timeoutMs }: { endpoint: string; path: string; timeoutMs: number }) {
    super(`${endpoint} did not answer within ${timeoutMs} ms`, {
      details: { endpoint, path, timeoutMs },
      hint: 'The service is slow or unreachable; the client retried. Raise timeoutMs of the API client if the service is known to be slow.',
      errorClass: 'retryable',
    })
    this.endpoint = endpoint
  }
}

/** The connection failed or was dropped before an answer. Retryable: the client already retried. */
export class ApiNetworkError extends BaseError {
  override name = 'ApiNetworkError' as const
  readonly endpoint: string

  constructor({ endpoint, path, cause }: { endpoint: string; path: string; cause: unknown }) {
    super(`${endpoint} could not be reached: ${describeNetworkCause(cause)}`, {
      details: { endpoint, path },
      hint: 'Check baseUrl of the API client and the network connection; the client retried before giving up.',
      errorClass: 'retryable',
      cause,
    })
    this.endpoint = endpoint
  }
}

function describeNetworkCause(cause: unknown): string {
  if (!(cause instanceof Error)) return String(cause)
  const inner = cause.cause instanceof Error ? `: ${cause.cause.message}` : ''
  return `${cause.message}${inner}`
}

/** The caller aborted the request through its AbortSignal. Operational: the caller asked for it; nothing to retry. */
export class ApiAbortedError extends BaseError {
  override name = 'ApiAbortedError' as const
  readonly endpoint: string

  constructor({ endpoint, path, cause }: { endpoint: string; path: string; cause: unknown }) {
    super(`${endpoint} was aborted by the caller`, {
      details: { endpoint, path },
      hint: 'The AbortSignal passed with the request was aborted.',
      errorClass: 'operational',
      cause,
    })
    this.endpoint = endpoint
  }
}

/** The API client's configuration is unusable (bad baseUrl, non-positive limits). Fatal: fix the configuration. */
export class ApiClientConfigError extends BaseError {
  override name = 'ApiClientConfigError' as const

  constructor(problem: string, details: Record<string, unknown>) {
    super(`Invalid API client configuration: ${problem}`, {
      details,
      hint: 'Fix the venue settings (url, rate limit, retries, timeouts) in the configuration.',
      errorClass: 'fatal',
    })
  }
}
