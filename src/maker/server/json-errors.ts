import type { Socket } from 'node:net'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Logger } from '../../log/logger.js'

// Every answer of the maker server is JSON, errors included (section 1 of the maker document): fastify's own
// failures (unknown path, wrong method, body too large, wrong content type, bad URL) and the HTTP server's socket
// level ones (request timeout, headers too large, unparsable request) are answered as `{ "error": "..." }` too.

export function sendError(reply: FastifyReply, status: number, error: string, extra: Record<string, string> = {}): FastifyReply {
  return reply
    .code(status)
    .type('application/json; charset=utf-8')
    .send(JSON.stringify({ error, ...extra }))
}

export type InstallJsonErrorsParameters = {
  bodyLimitBytes: number
  /** Path → methods served there, to tell a wrong method (405) from an unknown path (404). */
  routes: ReadonlyMap<string, readonly string[]>
  logger?: Logger | undefined
}

export function installJsonErrors(app: FastifyInstance, { bodyLimitBytes, routes, logger }: InstallJsonErrorsParameters): void {
  app.addHook('onResponse', drainUnreadBody)

  app.setNotFoundHandler((request, reply) => {
    const path = pathOf(request.raw.url ?? '/')
    const methods = routes.get(path)
    if (methods !== undefined) {
      reply.header('allow', methods.join(', '))
      return sendError(reply, 405, `method ${request.method} is not allowed on ${path}; use ${methods.join(' or ')}`)
    }
    return sendError(reply, 404, `no endpoint ${request.method} ${truncate(path)}`)
  })

  app.setErrorHandler((error: Error & { statusCode?: number; code?: string }, request, reply) => {
    const status = error.statusCode
    // fastify asks to close after refusing a body; closing with the body unread would reset the connection.
    if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') reply.removeHeader('connection')
    if (status !== undefined && status >= 400 && status < 500)
      return sendError(reply, status, describeClientError(error, request.headers, bodyLimitBytes))
    logger?.error({ err: error, method: request.method, path: pathOf(request.raw.url ?? '/') }, 'maker request failed')
    return sendError(reply, 500, 'internal error')
  })
}

/** A fastify request error as a sentence for the client. */
function describeClientError(error: { code?: string; message: string }, headers: Record<string, unknown>, bodyLimitBytes: number): string {
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return `request body too large: the limit is ${bodyLimitBytes} bytes`
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return `unsupported content type ${JSON.stringify(truncate(String(headers['content-type'] ?? '')))}: send the body as application/json`
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return 'the request body does not match its content-length'
    default:
      return `bad request: ${truncate(error.message)}`
  }
}

/** Fastify's `frameworkErrors` option: a URL the router cannot decode. */
export function answerFrameworkError(error: { code?: string; message: string }, _request: unknown, reply: FastifyReply): FastifyReply {
  return sendError(
    reply,
    400,
    error.code === 'FST_ERR_BAD_URL' ? 'malformed URL: it is not a valid path' : `bad request: ${truncate(error.message)}`,
  )
}

/** Sockets still reading the rest of a body whose request was already answered. */
const drainingSockets = new WeakSet<Socket>()

/**
 * After an answer given before the body arrived in full (413, 404, 401, …), reads the rest of the body away: closing
 * at once would make the kernel reset the connection while the client is still sending, and a client that reads only
 * after writing its whole body would see the reset instead of the answer. Reading stops when the body ends (the
 * connection stays usable) or when the request timeout closes the connection.
 */
async function drainUnreadBody(request: FastifyRequest): Promise<void> {
  const raw = request.raw
  if (raw.complete || raw.socket.destroyed) return
  drainingSockets.add(raw.socket)
  raw.once('end', () => drainingSockets.delete(raw.socket))
  raw.resume()
}

/** Fastify's `clientErrorHandler`: errors before a request exists (timeouts, oversized headers, garbage). */
export function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return
  // The request already has its answer; it only took too long to send the rest of its body.
  if (drainingSockets.has(socket)) {
    socket.destroy(error)
    return
  }
  const [status, text, message] =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [408, 'Request Timeout', 'request timeout: the request was not received in time']
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'Request Header Fields Too Large', 'request headers too large']
        : [400, 'Bad Request', 'malformed HTTP request']
  const body = JSON.stringify({ error: message })
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    )
  }
  socket.destroy(error)
}

export function pathOf(url: string): string {
  const query = url.indexOf('?')
  return query === -1 ? url : url.slice(0, query)
}

function truncate(text: string, max = 200): string {
  return text.length > max ? `${text.slice(0, max)}…` : text
}
