import type { Dispatcher } from 'undici'
import type { z } from 'zod'
import type { Logger } from '../log/logger.js'
import { type Clock, systemClock } from '../time/clock.js'
import { ApiClientConfigError } from './errors.js'
import { exchangeOverFetch, exchangeOverUndici } from './http-exchange.js'
import { parseApiResponse } from './parse-response.js'
import type { RetryPolicy } from './retry-timing.js'
import { type ApiRequest, type ApiTransportObserver, createTransport, type RateLimitPolicy } from './send-request.js'

export type { RetryPolicy } from './retry-timing.js'
export type {
  ApiAttemptOutcome,
  ApiRequest,
  ApiRetryReason,
  ApiTransportEvent,
  ApiTransportObserver,
  RateLimitPolicy,
  RequestOptions,
} from './send-request.js'

export const defaultTimeoutMs = 15_000
export const defaultRetryPolicy: Readonly<RetryPolicy> = { retries: 3, minDelayMs: 500, maxDelayMs: 10_000 }
export const defaultRateLimit: Readonly<RateLimitPolicy> = { requestsPerSecond: 10 }

export type CreateApiClientParameters = {
  /** Root of the API, e.g. the sandbox's url; paths of the API document are appended to it. */
  baseUrl: string
  /** Sent as the X-API-KEY header of every request; never logged nor put into errors. */
  apiKey?: string | undefined
  /** Default `partner` of the endpoints that take one (the service's default is `anon`). */
  partner?: string | undefined
  /** Per-attempt timeout, ms. */
  timeoutMs?: number | undefined
  /** Retries of 429, 5xx, dropped connections and timeouts; `false` turns them off. */
  retry?: Partial<RetryPolicy> | false | undefined
  /** Requests per second per host, retries included; `false` turns the limiter off. */
  rateLimit?: RateLimitPolicy | false | undefined
  /**
   * The undici dispatcher requests go through (default: a keep-alive pool of this client, `connectionsPerHost`
   * connections); tests compose an interceptor on one to watch requests.
   */
  dispatcher?: Dispatcher | undefined
  /** A fetch to send requests with instead of the dispatcher (tests fake or rewrite answers with one). */
  fetch?: typeof globalThis.fetch | undefined
  logger?: Logger | undefined
  /** Reads Retry-After dates and times requests. */
  clock?: Clock | undefined
  /** Told of every attempt and retry (metrics, health); more can be added later with `observe`. */
  observer?: ApiTransportObserver | undefined
}

/** The only stateful part of the API: its configuration and per-host rate limiter. Endpoint functions take it first. */
export type ApiClient = {
  readonly baseUrl: string
  readonly partner: string | undefined
  readonly timeoutMs: number
  readonly retry: Readonly<RetryPolicy>
  readonly rateLimit: Readonly<RateLimitPolicy> | undefined
  readonly clock: Clock
  /** Sends one request (rate limited, timed out, retried) and parses its 2xx answer with `schema`. */
  readonly request: <S extends z.ZodType>(request: ApiRequest, schema: S) => Promise<z.output<S>>
  /**
   * Adds an observer of every attempt and retry from now on (a bot's metrics and health, on a client opened before
   * them); returns its removal. Absent on clients that send nothing over HTTP (a backtest's simulated venue).
   */
  readonly observe?: (observer: ApiTransportObserver) => () => void
}

/**
 * Creates the API client.
 *
 * @example
 * const client = createApiClient({ baseUrl: sandbox.url, partner: 'my-bot', retry: { retries: 5 } })
 * const price = await getDeltaPrices(client, { chainId: 1, srcToken, destToken, amount: 10n ** 18n, srcDecimals: 18, destDecimals: 6 })
 */
export function createApiClient(parameters: CreateApiClientParameters): ApiClient {
  const baseUrl = checkBaseUrl(parameters.baseUrl)
  const timeoutMs = positive('timeoutMs', parameters.timeoutMs ?? defaultTimeoutMs)
  const retry = retryPolicyOf(parameters.retry)
  const rateLimit =
    parameters.rateLimit === false
      ? undefined
      : { requestsPerSecond: positive('rateLimit.requestsPerSecond', (parameters.rateLimit ?? defaultRateLimit).requestsPerSecond) }
  const clock = parameters.clock ?? systemClock
  const headers: Record<string, string> = { accept: 'application/json' }
  if (parameters.apiKey) headers['X-API-KEY'] = parameters.apiKey
  const observers = new Set<ApiTransportObserver>(parameters.observer ? [parameters.observer] : [])
  const send = createTransport({
    baseUrl,
    headers,
    exchange: parameters.fetch
      ? exchangeOverFetch(new URL(baseUrl).origin, parameters.fetch)
      : exchangeOverUndici(new URL(baseUrl).origin, parameters.dispatcher),
    timeoutMs,
    retry,
    rateLimit,
    clock,
    logger: parameters.logger,
    random: Math.random,
    observer: (event) => {
      for (const observer of observers) observer(event)
    },
  })
  return Object.freeze({
    baseUrl,
    partner: parameters.partner,
    timeoutMs,
    retry,
    rateLimit,
    clock,
    request: async <S extends z.ZodType>(request: ApiRequest, schema: S): Promise<z.output<S>> => {
      const { status, json } = await send(request)
      return parseApiResponse(schema, json, request.endpoint, status)
    },
    observe: (observer) => {
      // A wrapper per call, so that adding the same function twice needs two removals.
      const added: ApiTransportObserver = (event) => observer(event)
      observers.add(added)
      return () => {
        observers.delete(added)
      }
    },
  })
}

function checkBaseUrl(baseUrl: string): string {
  let url: URL
  try {
    url = new URL(baseUrl)
  } catch {
    throw new ApiClientConfigError('baseUrl is not a URL', {})
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ApiClientConfigError('baseUrl must be http or https', {})
  if (url.username || url.password) throw new ApiClientConfigError('baseUrl must not carry credentials; pass apiKey instead', {})
  if (url.search || url.hash) throw new ApiClientConfigError('baseUrl must not carry a query or fragment', {})
  return url.toString().replace(/\/+$/, '')
}

function retryPolicyOf(retry: CreateApiClientParameters['retry']): Readonly<RetryPolicy> {
  if (retry === false) return { ...defaultRetryPolicy, retries: 0 }
  const policy = {
    retries: retry?.retries ?? defaultRetryPolicy.retries,
    minDelayMs: retry?.minDelayMs ?? defaultRetryPolicy.minDelayMs,
    maxDelayMs: retry?.maxDelayMs ?? defaultRetryPolicy.maxDelayMs,
  }
  if (!Number.isInteger(policy.retries) || policy.retries < 0) {
    throw new ApiClientConfigError('retry.retries must be a whole number of at least 0', { retries: policy.retries })
  }
  positive('retry.minDelayMs', policy.minDelayMs, true)
  positive('retry.maxDelayMs', policy.maxDelayMs, true)
  if (policy.minDelayMs > policy.maxDelayMs) {
    throw new ApiClientConfigError('retry.minDelayMs is above retry.maxDelayMs', {
      minDelayMs: policy.minDelayMs,
      maxDelayMs: policy.maxDelayMs,
    })
  }
  return Object.freeze(policy)
}

function positive(name: string, value: number, zeroAllowed = false): number {
  if (!Number.isFinite(value) || value < 0 || (!zeroAllowed && value === 0)) {
    throw new ApiClientConfigError(`${name} must be a ${zeroAllowed ? 'non-negative' : 'positive'} number`, { [name]: value })
  }
  return value
}
