import { createStreamParser, type StreamMessage } from './event-stream-parser.js'

export type FollowStreamParameters = {
  url: string
  /** Headers for each connection (read again at each one: the token may have changed). */
  headers: () => Record<string, string>
  /** Each message that has data. */
  onMessage: (message: StreamMessage) => void
  /** Connected (a 200 text/event-stream), or waiting to reconnect. */
  onState: (state: 'live' | 'reconnecting') => void
  /** The server answered 401: no reconnection until `restart()`. */
  onUnauthorized: () => void
  /** Ms before the first reconnection, until the server says otherwise with `retry:` (default 1,000). */
  retryMs?: number
  /** The longest wait between attempts as failures add up (default 30,000). */
  maxRetryMs?: number
  /** A connection silent this long (no event, no heartbeat) is taken as dead and replaced (default 45,000). */
  idleMs?: number
}

/**
 * Follows a Server-Sent Events endpoint with fetch, as EventSource would but sending the headers it is given (the
 * console's bearer token): reconnects after `retry:` ms, doubling the wait while attempts fail, with Last-Event-ID
 * set to the last id received, so the stream resumes where it stopped. Ends when the page is left.
 */
export function followStream({
  url,
  headers,
  onMessage,
  onState,
  onUnauthorized,
  retryMs = 1_000,
  maxRetryMs = 30_000,
  idleMs = 45_000,
}: FollowStreamParameters) {
  let retry = retryMs
  let failures = 0
  let stopped = false
  let running = false
  /** Connect again without waiting (restart()). */
  let now = false
  let connection: AbortController | undefined
  let wake: (() => void) | undefined
  const parser = createStreamParser(onMessage, (ms) => {
    retry = ms
  })

  /** One connection, until it ends. */
  async function connect(): Promise<'opened' | 'failed' | 'unauthorized'> {
    const controller = new AbortController()
    connection = controller
    let opened = false
    let idle: ReturnType<typeof setTimeout> | undefined
    const alive = () => {
      clearTimeout(idle)
      idle = setTimeout(() => controller.abort(), idleMs)
    }
    try {
      const lastId = parser.lastId()
      const response = await fetch(url, {
        headers: { accept: 'text/event-stream', ...headers(), ...(lastId ? { 'last-event-id': lastId } : {}) },
        cache: 'no-store',
        signal: controller.signal,
      })
      if (response.status === 401) return 'unauthorized'
      if (!response.ok || !response.body || !response.headers.get('content-type')?.startsWith('text/event-stream')) {
        await response.body?.cancel()
        return 'failed'
      }
      opened = true
      onState('live')
      alive()
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader()
      for (;;) {
        const { value, done } = await reader.read()
        if (done) break
        alive()
        parser.push(value)
      }
    } catch {
      // A network error, a cut connection, or an abort (ours): each ends this connection the same way.
    } finally {
      clearTimeout(idle)
      parser.reset()
    }
    return opened ? 'opened' : 'failed'
  }

  async function run(): Promise<void> {
    running = true
    try {
      while (!stopped) {
        const outcome = await connect()
        if (stopped) return
        if (outcome === 'unauthorized') {
          stopped = true
          onUnauthorized()
          return
        }
        failures = outcome === 'opened' ? 0 : failures + 1
        onState('reconnecting')
        if (now) {
          now = false
          continue
        }
        const wait = Math.min(retry * 2 ** Math.max(0, failures - 1), maxRetryMs)
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, wait)
          wake = () => {
            clearTimeout(timer)
            resolve()
          }
        })
        wake = undefined
      }
    } finally {
      running = false
    }
  }

  /** Connects again now (the token changed), resuming from the last id received. */
  function restart(): void {
    stopped = false
    failures = 0
    if (!running) {
      void run()
      return
    }
    now = true
    connection?.abort()
    wake?.()
  }

  window.addEventListener('pagehide', () => {
    stopped = true
    connection?.abort()
    wake?.()
  })
  // Back from the browser's page cache: the stream was ended when the page was left.
  window.addEventListener('pageshow', (event) => {
    if (event.persisted) restart()
  })
  void run()
  return { restart }
}
