import WebSocket, { type RawData } from 'ws'
import { z } from 'zod'
import { type MakerCredentials, makerAuthHeaders } from '../../protocol/maker-auth.js'
import { type MakerStreamMessage, makerStreamMessageSchema } from '../../protocol/maker-wire.js'
import type { Clock } from '../../time/clock.js'

// One connection to a maker's WebSocket channel (section 4 of the maker document): one-way, maker → service; the
// first message is the complete tokens, pairs, prices and blacklist, later ones carry changes only. Reconnecting,
// and what the messages mean for routing, belong to the caller.

/** The first message: every key of the four HTTP answers. */
const makerStreamSnapshotSchema = makerStreamMessageSchema.required({ tokens: true, pairs: true, prices: true, blacklist: true })
export type MakerStreamSnapshot = z.output<typeof makerStreamSnapshotSchema>

/**
 * How a connection ended: `invalid` (the maker sent a message the sandbox refuses; the sandbox closed the socket),
 * `dropped` (refused, unreachable, closed by the maker, silent) or `closed` (by the sandbox).
 */
export type MakerStreamEnd = { kind: 'invalid' | 'dropped' | 'closed'; reason: string }

export type OpenMakerStreamParameters = {
  url: URL
  credentials?: MakerCredentials | undefined
  /** Signs the handshake: the maker checks the timestamp against its own clock. */
  wallClock: Clock
  /** Opening handshake timeout. */
  timeoutMs: number
  /** A ping unanswered when the next one is due drops the socket. */
  pingIntervalMs: number
  onSnapshot: (snapshot: MakerStreamSnapshot) => void
  onChange: (change: MakerStreamMessage) => void
  /** Called once, whatever ended the connection; nothing is reported after it. */
  onEnd: (end: MakerStreamEnd) => void
}

export type MakerStreamConnection = {
  /** Closes the socket; `onEnd` hears `closed` unless the connection had already ended. */
  close: () => void
}

/** A snapshot of many pairs is large; a message beyond this drops the socket (close 1009). */
const maxMessageBytes = 16 * 1024 * 1024

/**
 * Opens the maker's stream with the four X-AUTH headers signed over GET and the URL's path (no query, no body), as
 * section 5 of the maker document asks, and reports each message parsed with the shared maker-wire schemas.
 */
export function openMakerStream(parameters: OpenMakerStreamParameters): MakerStreamConnection {
  const { url, credentials, wallClock } = parameters
  const path = url.pathname === '' ? '/' : url.pathname
  const where = `WebSocket ${url.origin}${path}`
  const headers = credentials ? makerAuthHeaders(credentials, { nowMs: wallClock.now(), method: 'GET', path }) : {}
  const socket = new WebSocket(url, {
    headers,
    handshakeTimeout: parameters.timeoutMs,
    maxPayload: maxMessageBytes,
    followRedirects: false,
    perMessageDeflate: false,
  })
  let ended = false
  let received = false
  let pingTimer: ReturnType<typeof setInterval> | undefined
  let awaitingPong = false

  const end = (kind: MakerStreamEnd['kind'], reason: string) => {
    if (ended) return
    ended = true
    clearInterval(pingTimer)
    parameters.onEnd({ kind, reason: `${where} ${reason}` })
  }
  const refuse = (reason: string) => {
    end('invalid', reason)
    socket.close(1008, 'invalid message')
  }
  const deliver = (apply: () => void) => {
    try {
      apply()
    } catch (error) {
      refuse(`sent a message the sandbox could not apply: ${error instanceof Error ? error.message : String(error)}`)
    }
  }

  socket.on('unexpected-response', (_request, response) => {
    // The maker refused the handshake with an HTTP answer (an `error` body when it follows the document).
    let body = ''
    response.setEncoding('utf8')
    response.on('data', (chunk: string) => {
      if (body.length < 2_000) body += chunk
    })
    const timer = setTimeout(() => refused(), parameters.timeoutMs)
    const refused = () => {
      clearTimeout(timer)
      end('dropped', `refused the handshake with ${response.statusCode ?? 'no status'}: ${errorText(body)}`)
      socket.terminate()
    }
    response.on('end', refused)
    response.on('error', refused)
  })
  socket.on('open', () => {
    pingTimer = setInterval(() => {
      if (awaitingPong) {
        end('dropped', `answered no ping within ${parameters.pingIntervalMs} ms`)
        socket.terminate()
        return
      }
      awaitingPong = true
      socket.ping()
    }, parameters.pingIntervalMs)
    pingTimer.unref()
  })
  socket.on('pong', () => {
    awaitingPong = false
  })
  socket.on('message', (data: RawData) => {
    if (ended) return
    const text = rawText(data)
    let json: unknown
    try {
      json = JSON.parse(text)
    } catch {
      return refuse(`sent a message that is not JSON: ${clip(text) || '(empty)'}`)
    }
    const first = !received
    received = true
    if (first) {
      const parsed = makerStreamSnapshotSchema.safeParse(json)
      if (!parsed.success) {
        return refuse(`sent an invalid first message (the complete tokens, pairs, prices and blacklist): ${problemsOf(parsed.error)}`)
      }
      return deliver(() => parameters.onSnapshot(parsed.data))
    }
    const parsed = makerStreamMessageSchema.safeParse(json)
    if (!parsed.success) return refuse(`sent an invalid message: ${problemsOf(parsed.error)}`)
    deliver(() => parameters.onChange(parsed.data))
  })
  socket.on('close', (code, reason) => {
    const text = reason.toString('utf8')
    end('dropped', `closed (${code}${text ? `: ${text}` : ''})`)
  })
  // Always listened to: an unheard 'error' would crash the sandbox. A close follows it.
  socket.on('error', (error) => end('dropped', `failed: ${describeError(error)}`))

  return {
    close() {
      end('closed', 'closed by the sandbox')
      if (socket.readyState === WebSocket.CONNECTING) socket.terminate()
      else socket.close(1000, 'closed by the sandbox')
    },
  }
}

function problemsOf(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((issue) => `${issue.path.map(String).join('.') || '(message)'}: ${issue.message}`)
    .join('; ')
}

function rawText(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8')
  return Buffer.isBuffer(data) ? data.toString('utf8') : Buffer.from(data).toString('utf8')
}

const errorBodySchema = z.object({ error: z.string() })

function errorText(body: string): string {
  try {
    const parsed = errorBodySchema.safeParse(JSON.parse(body))
    if (parsed.success) return parsed.data.error
  } catch {
    // not JSON: shown as received
  }
  return clip(body) || '(empty body)'
}

function clip(text: string): string {
  return text.length > 200 ? `${text.slice(0, 200)}…` : text
}

function describeError(error: Error): string {
  const code = (error as { code?: unknown }).code
  return typeof code === 'string' && !error.message.includes(code) ? `${error.message} (${code})` : error.message
}
