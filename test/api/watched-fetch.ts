import { Writable } from 'node:stream'
import { Agent, type Dispatcher } from 'undici'
import { createLogger, type Logger } from '../../src/log/logger.js'

export type SeenRequest = { url: URL; method: string; headers: Headers; body: unknown }

/** The global fetch, recording every request the API client sends (the sandbox ignores headers such as X-API-KEY). */
export function watchedFetch(): { fetch: typeof globalThis.fetch; seen: SeenRequest[] } {
  const seen: SeenRequest[] = []
  const fetch: typeof globalThis.fetch = (input, init) => {
    const body = typeof init?.body === 'string' ? JSON.parse(init.body) : undefined
    seen.push({ url: new URL(String(input)), method: init?.method ?? 'GET', headers: new Headers(init?.headers), body })
    return globalThis.fetch(input, init)
  }
  return { fetch, seen }
}

/** A keep-alive undici agent, as the client makes by default, recording every request the API client sends through it. */
export function watchedDispatcher(): { dispatcher: Dispatcher; seen: SeenRequest[] } {
  const seen: SeenRequest[] = []
  const dispatcher = new Agent().compose((dispatch) => (options, handler) => {
    const body = typeof options.body === 'string' ? JSON.parse(options.body) : undefined
    const headers = new Headers(options.headers as Record<string, string> | undefined)
    seen.push({ url: new URL(options.path, options.origin), method: options.method, headers, body })
    return dispatch(options, handler)
  })
  return { dispatcher, seen }
}

/** A debug logger whose JSON lines are kept for assertions. */
export function capturedLogger(): { logger: Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = []
  const destination = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(String(chunk)))
      done()
    },
  })
  return { logger: createLogger({ level: 'debug', destination }), lines }
}
