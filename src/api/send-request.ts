import { setTimeout as sleep } from 'node:timers/promises'
import pRetry, { AbortError } from 'p-retry'
import pThrottle from 'p-throttle'
import { z } from 'zod'
import { BaseError } from '../errors/base.js'
import type { Logger } from '../log/logger.js'
import type { Clock } from '../time/clock.js'
import { toApiRequestError } from './error-rules.js'
import {
  ApiAbortedError,
  ApiMalformedAnswerError,
  ApiNetworkError,
  ApiRequestError,
  ApiServerError,
  ApiTimeoutError,
  RateLimitedError,
  type ServiceAnswer,
} from './errors.js'
import { ExchangeCancel, type HttpExchange, type HttpExchangeAnswer } from './http-exchange.js'
import { type QueryValues, toQueryString } from './query-string.js'
import { backoffDelay, parseRetryAfter, type RetryPolicy } from './retry-timing.js'

/**
 * One call of an endpoint, as the endpoint functions describe it. The same object may be sent again (a feed polls the
 * same price): its URL is built once, so it must not be changed once sent.
 */
export type ApiRequest = {
  method: 'GET' | 'POST'
  /** The endpoint as the API document names it ("GET /v2/delta/orders/{orderId}"): errors and logs carry it. */
  endpoint: string
  /** The path with its parameters filled in (encoded). */
  path: string
  query?: QueryValues | undefined
  /** JSON-serialisable body (amounts already decimal strings). */
  body?: unknown
  signal?: AbortSignal | undefined
  /** Overrides the client's timeout for this call, per attempt. */
  timeoutMs?: number | undefined
}

/** Options every endpoint function accepts besides its parameters. */
export type RequestOptions = {
  /** Aborts the call (and its retries); the call then throws ApiAbortedError. */
  signal?: AbortSignal | undefined
  /** Per-attempt timeout of this call, ms (default: the client's). */
  timeoutMs?: number | undefined
}

export type RateLimitPolicy = {
  /** Requests per second to one host, retries included. */
  requestsPerSecond: number
}

export type TransportSettings = {
  /** Without a trailing slash. */
  baseUrl: string
  /** Sent with every request (the API key among them): never logged, never put into errors. */
  headers: Readonly<Record<string, string>>
  /** One round trip to the origin of `baseUrl`. */
  exchange: HttpExchange
  timeoutMs: number
  retry: RetryPolicy
  rateLimit: RateLimitPolicy | undefined
  clock: Clock
  logger: Logger | undefined
  /** Jitter source of the backoff. */
  random: () => number
  /** Told of every attempt and every retry (metrics, health); a throwing observer is ignored. */
  observer?: ApiTransportObserver | undefined
}

/** How one attempt of a request ended: answered (`ok`, or `refused` by a 4xx other than 429), or the fault that ended it. */
export type ApiAttemptOutcome = 'ok' | 'refused' | 'rate-limited' | 'server-error' | 'timeout' | 'network' | 'malformed' | 'aborted'

/** Why the transport tries a request again (the label of a retry counter). */
export type ApiRetryReason = '429' | '5xx' | 'timeout' | 'network' | 'malformed'

/** What the transport tells its observer: each attempt's outcome (real ms it took), and each retry with its reason. */
export type ApiTransportEvent =
  | { type: 'attempt'; endpoint: string; outcome: ApiAttemptOutcome; status: number | undefined; durationMs: number; error: unknown }
  | { type: 'retry'; endpoint: string; reason: ApiRetryReason; attempt: number; delayMs: number }

export type ApiTransportObserver = (event: ApiTransportEvent) => void

/** A 2xx answer, parsed as JSON. */
export type JsonAnswer = { status: number; json: unknown }

/**
 * Sends requests the way the service wants to be called: per host rate limit (p-throttle), a timeout per attempt,
 * retries with jittered exponential backoff (p-retry) on 429, 5xx, dropped connections, timeouts and 2xx answers cut
 * off or garbled on the way (not JSON), waiting what a Retry-After header asks, and the status checked before the body
 * is parsed (429 and 5xx bodies may be empty or HTML). POSTs are retried too: builds are pure, a submission is keyed by
 * its signed order (the service answers the stored order again for the same hash), and callers treat "already
 * cancelled / already stored" as done.
 */
export function createTransport(settings: TransportSettings): (request: ApiRequest) => Promise<JsonAnswer> {
  // Every request goes to the one host of baseUrl, so one limiter serves them all; paths are relative to its origin.
  const base = new URL(settings.baseUrl)
  const basePath = settings.baseUrl.slice(base.origin.length)
  const paths = new WeakMap<ApiRequest, string>()
  const pathOf = (request: ApiRequest) => {
    let path = paths.get(request)
    if (path === undefined) {
      path = `${basePath}${request.path}${toQueryString(request.query)}`
      paths.set(request, path)
    }
    return path
  }
  const { rateLimit } = settings
  const limited = rateLimit
    ? pThrottle({ ...throttleWindow(rateLimit.requestsPerSecond), strict: true })((task: () => Promise<JsonAnswer>) => task())
    : (task: () => Promise<JsonAnswer>) => task()

  const observe = (event: ApiTransportEvent) => {
    try {
      settings.observer?.(event)
    } catch (error) {
      settings.logger?.warn({ err: error, endpoint: event.endpoint }, 'an API transport observer threw; ignored')
    }
  }
  /** One attempt, its outcome told to the observer. */
  const observed = async (request: ApiRequest, path: string, body: string | null): Promise<JsonAnswer> => {
    const started = performance.now()
    try {
      const answer = await attempt(settings, request, path, body)
      observe({
        type: 'attempt',
        endpoint: request.endpoint,
        outcome: 'ok',
        status: answer.status,
        durationMs: performance.now() - started,
        error: undefined,
      })
      return answer
    } catch (error) {
      observe({
        type: 'attempt',
        endpoint: request.endpoint,
        outcome: attemptOutcomeOf(error),
        status: error instanceof ApiRequestError || error instanceof ApiMalformedAnswerError ? error.status : undefined,
        durationMs: performance.now() - started,
        error,
      })
      throw error
    }
  }

  return async (request) => {
    const path = pathOf(request)
    const body = request.body === undefined ? null : JSON.stringify(request.body)
    const { signal } = request
    const aborted = () => new ApiAbortedError({ endpoint: request.endpoint, path: request.path, cause: signal?.reason })
    if (signal?.aborted) throw aborted()
    try {
      return await pRetry(
        async () => {
          try {
            return await limited(() => observed(request, path, body))
          } catch (error) {
            if (isRetryable(error) && !signal?.aborted) throw error
            throw new AbortError(error instanceof Error ? error : new Error(String(error)))
          }
        },
        {
          retries: settings.retry.retries,
          // p-retry only loops; the delay (backoff or Retry-After) is awaited in onFailedAttempt.
          minTimeout: 0,
          maxTimeout: 0,
          ...(signal ? { signal } : {}),
          onFailedAttempt: async (error) => {
            // Thrown here, the last error is the one reported (p-retry would report the most frequent one).
            if (error.retriesLeft <= 0) throw error
            const retryAfterMs = retryAfterOf(error)
            if (retryAfterMs !== undefined && retryAfterMs > settings.retry.maxDelayMs) throw error
            const delayMs = retryAfterMs ?? backoffDelay(error.attemptNumber, settings.retry, settings.random)
            const reason = retryReasonOf(error)
            if (reason) observe({ type: 'retry', endpoint: request.endpoint, reason, attempt: error.attemptNumber, delayMs })
            settings.logger?.warn(
              {
                endpoint: request.endpoint,
                path: request.path,
                attempt: error.attemptNumber,
                delayMs,
                error: error.message.split('\n')[0],
              },
              'API request failed; retrying',
            )
            await sleep(delayMs, undefined, signal ? { signal } : {})
          },
        },
      )
    } catch (error) {
      if (signal?.aborted) throw aborted()
      throw error
    }
  }
}

async function attempt(settings: TransportSettings, request: ApiRequest, path: string, body: string | null): Promise<JsonAnswer> {
  const where = { endpoint: request.endpoint, path: request.path }
  const caller = request.signal
  // The caller's signal may have fired while the request waited for the rate limiter.
  if (caller?.aborted) throw new ApiAbortedError({ ...where, cause: caller.reason })
  const timeoutMs = request.timeoutMs ?? settings.timeoutMs
  // A timer and a plain emitter per attempt: no AbortSignal (see ExchangeCancel).
  const cancel = new ExchangeCancel()
  let timedOut = false
  const timer = setTimeout(() => {
    timedOut = true
    cancel.abort()
  }, timeoutMs)
  const abortWithCaller = () => cancel.abort()
  caller?.addEventListener('abort', abortWithCaller, { once: true })
  const started = settings.clock.now()
  let answer: HttpExchangeAnswer
  try {
    answer = await settings.exchange({
      method: request.method,
      path,
      headers: request.body === undefined ? settings.headers : { ...settings.headers, 'content-type': 'application/json' },
      body,
      cancel,
    })
  } catch (cause) {
    if (caller?.aborted) throw new ApiAbortedError({ ...where, cause: caller.reason })
    if (timedOut) throw new ApiTimeoutError({ ...where, timeoutMs })
    throw new ApiNetworkError({ ...where, cause })
  } finally {
    clearTimeout(timer)
    caller?.removeEventListener('abort', abortWithCaller)
  }
  settings.logger?.debug({ ...where, status: answer.status, ms: settings.clock.now() - started }, 'API request')
  if (answer.status < 200 || answer.status > 299) throw toApiRequestError(serviceAnswer(settings, request, answer))
  return { status: answer.status, json: parseJsonBody(request, answer.status, answer.text) }
}

/** A 2xx body that is empty or not JSON was damaged on its way: retryable (a JSON body of the wrong shape is not). */
function parseJsonBody({ endpoint, path }: ApiRequest, status: number, text: string): unknown {
  if (text.trim() === '') throw new ApiMalformedAnswerError({ endpoint, path, status, excerpt: '""' })
  try {
    return JSON.parse(text)
  } catch (cause) {
    throw new ApiMalformedAnswerError({ endpoint, path, status, excerpt: excerpt(text), cause })
  }
}

/** Error bodies: `{ error }` as the service sends them, `{ errorType, details }` as its OpenAPI documents show them. */
const errorBodySchema = z.looseObject({ error: z.string().optional(), errorType: z.string().optional(), message: z.string().optional() })

function serviceAnswer(settings: TransportSettings, request: ApiRequest, { status, text, header }: HttpExchangeAnswer): ServiceAnswer {
  const body = errorBodySchema.safeParse(parseQuietly(text))
  const fields = body.success ? body.data : undefined
  const messageKey = fields?.error !== undefined ? 'error' : fields?.errorType !== undefined ? 'errorType' : 'message'
  const extra: Record<string, string | number | boolean | null> = {}
  for (const [key, value] of Object.entries(fields ?? {})) {
    if (key === messageKey) continue
    if (value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') extra[key] = value
  }
  if (!fields && text.trim() !== '') extra.body = excerpt(text)
  return {
    endpoint: request.endpoint,
    path: request.path,
    status,
    message: fields?.error ?? fields?.errorType ?? fields?.message,
    extra,
    retryAfterMs: parseRetryAfter(header('retry-after'), settings.clock.now()),
  }
}

function parseQuietly(text: string): unknown {
  try {
    return text.trim() === '' ? undefined : JSON.parse(text)
  } catch {
    return undefined
  }
}

function excerpt(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim()
  return JSON.stringify(flat.length > 120 ? `${flat.slice(0, 117)}...` : flat)
}

function attemptOutcomeOf(error: unknown): ApiAttemptOutcome {
  if (error instanceof RateLimitedError) return 'rate-limited'
  if (error instanceof ApiServerError) return 'server-error'
  if (error instanceof ApiRequestError) return 'refused'
  if (error instanceof ApiTimeoutError) return 'timeout'
  if (error instanceof ApiMalformedAnswerError) return 'malformed'
  if (error instanceof ApiAbortedError) return 'aborted'
  return 'network'
}

function retryReasonOf(error: unknown): ApiRetryReason | undefined {
  switch (attemptOutcomeOf(error)) {
    case 'rate-limited':
      return '429'
    case 'server-error':
      return '5xx'
    case 'timeout':
      return 'timeout'
    case 'malformed':
      return 'malformed'
    case 'network':
      return 'network'
    default:
      return undefined
  }
}

function isRetryable(error: unknown): boolean {
  return error instanceof BaseError && error.errorClass === 'retryable'
}

function retryAfterOf(error: unknown): number | undefined {
  return error instanceof RateLimitedError || error instanceof ApiServerError ? error.retryAfterMs : undefined
}

/** p-throttle wants whole calls per interval: 10/s → 10 per 1000 ms, 0.5/s → 1 per 2000 ms, 2.5/s → 2 per 800 ms. */
function throttleWindow(requestsPerSecond: number): { limit: number; interval: number } {
  const limit = Math.max(1, Math.floor(requestsPerSecond))
  return { limit, interval: (limit * 1000) / requestsPerSecond }
}
