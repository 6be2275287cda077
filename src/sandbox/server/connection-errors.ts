import type { Socket } from 'node:net'
import type { FastifyRequest } from 'fastify'
import { commonErrors } from './api-error.js'

// What happens on the connection itself when a request goes wrong before or while its body arrives.

/** Sockets still reading the rest of a body whose request was already answered. */
const drainingSockets = new WeakSet<Socket>()

/**
 * fastify's `onResponse` hook: after an answer given before the body arrived in full (413, 404, an injected fault),
 * keeps reading the rest of the body away. Closing at once would make the kernel reset the connection while the
 * client is still sending, and a client that reads only after writing its whole body would see the reset instead of
 * the answer. Reading stops when the body ends (the connection stays usable) or when the request timeout closes it.
 */
export async function drainUnreadBody(request: FastifyRequest): Promise<void> {
  const raw = request.raw
  if (raw.complete || raw.socket.destroyed) return
  drainingSockets.add(raw.socket)
  raw.once('end', () => drainingSockets.delete(raw.socket))
  raw.resume()
}

/**
 * fastify's `clientErrorHandler`: errors of a connection rather than a route (the request timeout, oversized headers,
 * an unparsable request), answered as `{ error }` before the connection is closed.
 */
export function answerClientError(requestTimeoutMs: number) {
  return (error: Error & { code?: string }, socket: Socket): void => {
    if (error.code === 'ECONNRESET' || socket.destroyed) return
    // The request already has its answer; it only took too long to read the rest of its body.
    if (drainingSockets.has(socket)) {
      socket.destroy(error)
      return
    }
    const [status, reason, message] =
      error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [
            408,
            'Request Timeout',
            `${commonErrors.requestTimeout.message}: the request did not arrive in full within ${requestTimeoutMs} ms`,
          ]
        : error.code === 'HPE_HEADER_OVERFLOW'
          ? [431, 'Request Header Fields Too Large', 'Request header fields too large']
          : [400, 'Bad Request', 'Bad request: malformed HTTP request']
    const body = JSON.stringify({ error: message })
    if (socket.writable && !(socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent) {
      socket.write(
        `HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      )
    }
    socket.destroy(error)
  }
}
