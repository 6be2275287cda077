/** One documented error of the sandbox's API: what `/resources/errors.json` lists and what a handler throws. */
export type ApiErrorSpec = {
  /** "METHOD /path" as in the API document. */
  endpoint: string
  status: number
  /** The `error` string of the body (matched by clients as quoted in the API document). */
  message: string
  cause: string
  fix: string
}

const catalogue: ApiErrorSpec[] = []

/** Declares a group of errors; every declared error appears in `/resources/errors.json`. */
export function defineApiErrors<T extends Record<string, ApiErrorSpec>>(specs: T): T {
  catalogue.push(...Object.values(specs))
  return specs
}

export function listApiErrors(): readonly ApiErrorSpec[] {
  return catalogue
}

/** Thrown by handlers; the server answers `status` with `{ error: message, ...extra }`. */
export class ApiError extends Error {
  override name = 'ApiError'
  readonly status: number
  readonly extra: Record<string, unknown>

  constructor(spec: ApiErrorSpec, options: { message?: string; extra?: Record<string, unknown> } = {}) {
    super(options.message ?? spec.message)
    this.status = spec.status
    this.extra = options.extra ?? {}
  }
}

export const commonErrors = defineApiErrors({
  validation: {
    endpoint: '*',
    status: 400,
    message: 'Validation failed',
    cause: 'A query parameter or body field is missing, of the wrong type or out of range; the message names it.',
    fix: 'Correct the named field.',
  },
  notFound: {
    endpoint: '*',
    status: 404,
    message: 'Not found',
    cause: 'No such endpoint or resource.',
    fix: 'Check the path against the API document.',
  },
  requestTimeout: {
    endpoint: '*',
    status: 408,
    message: 'Request timeout',
    cause:
      'The request, headers and body, did not arrive in full within the request timeout (30 s by default), e.g. its Content-Length overstates its body. The connection is closed.',
    fix: 'Send the whole request, with a Content-Length equal to the body length.',
  },
  payloadTooLarge: {
    endpoint: '*',
    status: 413,
    message: 'Payload too large',
    cause: 'The request body is over the body limit (5 MiB by default); the message gives the limit.',
    fix: 'Send a smaller body.',
  },
  rateLimited: {
    endpoint: '*',
    status: 429,
    message: 'Too many requests',
    cause: 'Rate limit reached (sandbox fault injection).',
    fix: 'Retry after the Retry-After delay.',
  },
})
