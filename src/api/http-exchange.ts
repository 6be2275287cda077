import { EventEmitter } from 'node:events'
import type { Dispatcher } from 'undici'

/**
 * Ends one exchange: emits 'abort' once, and remembers it in `aborted`, which undici reads before it sends. An
 * EventEmitter rather than an AbortSignal: on Node 20 every AbortSignal holds a weak native handle, which keeps the
 * request's objects alive through young-generation collections, so a signal per request fills the old generation.
 */
export class ExchangeCancel extends EventEmitter {
  aborted = false

  abort(): void {
    if (this.aborted) return
    this.aborted = true
    this.emit('abort')
  }
}

/** One request as the transport sends it: the path is relative to the origin, query string included. */
export type HttpExchangeRequest = {
  method: 'GET' | 'POST'
  path: string
  headers: Readonly<Record<string, string>>
  body: string | null
  /** Aborted when the transport gives up on the exchange (its timeout, or the caller's signal). */
  cancel: ExchangeCancel
}

/** An answer read in full. */
export type HttpExchangeAnswer = {
  status: number
  text: string
  /** A response header by its lowercase name. */
  header: (name: string) => string | undefined
}

/** One HTTP round trip to a fixed origin; rejects only when no whole answer arrived (connection, abort). */
export type HttpExchange = (request: HttpExchangeRequest) => Promise<HttpExchangeAnswer>

/**
 * Keep-alive connections per host. A bot polling 1,000 requests a second keeps about 10 in use (answers take a few
 * ms); the rest absorb bursts after a pause of the event loop. Requests beyond them wait for a free connection, within
 * their timeout, instead of opening one socket each.
 */
export const connectionsPerHost = 64

/**
 * Exchanges over undici's pooled `request` (no Request, Response, Headers or web stream per call), through
 * `dispatcher` or a keep-alive agent of `connectionsPerHost` connections made at the first request. undici is loaded
 * then too, so commands that never call the service do not pay for loading it.
 */
export function exchangeOverUndici(origin: string, dispatcher?: Dispatcher): HttpExchange {
  let pooled: Promise<Dispatcher> | undefined
  const dispatcherOf = () => {
    pooled ??= dispatcher
      ? Promise.resolve(dispatcher)
      : import('undici').then(({ Agent }) => new Agent({ connections: connectionsPerHost }))
    return pooled
  }
  return async ({ method, path, headers, body, cancel }) => {
    const pool = await dispatcherOf()
    // undici takes an EventEmitter as a request's signal.
    const answer = await pool.request({ origin, path, method, headers, body, signal: cancel })
    const text = await answer.body.text()
    return { status: answer.statusCode, text, header: (name) => firstOf(answer.headers[name]) }
  }
}

/** Exchanges over a fetch function (a test's watched or faked fetch). */
export function exchangeOverFetch(origin: string, fetch: typeof globalThis.fetch): HttpExchange {
  return async ({ method, path, headers, body, cancel }) => {
    const controller = new AbortController()
    const abort = () => controller.abort()
    if (cancel.aborted) abort()
    cancel.once('abort', abort)
    try {
      const response = await fetch(`${origin}${path}`, { method, headers, body, signal: controller.signal })
      const text = await response.text()
      return { status: response.status, text, header: (name) => response.headers.get(name) ?? undefined }
    } finally {
      cancel.off('abort', abort)
    }
  }
}

function firstOf(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value
}
