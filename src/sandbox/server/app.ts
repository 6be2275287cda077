import Fastify, { type FastifyInstance } from 'fastify'
import type { SandboxVenue } from '../venue/sandbox-venue.js'
import { ApiError, commonErrors } from './api-error.js'
import { answerClientError, drainUnreadBody } from './connection-errors.js'
import type { SandboxDesk } from './desk.js'
import type { FaultInjector, FaultRule } from './faults.js'
import { resolveSandboxServerLimits, type SandboxServerLimits, serverOptionsOf } from './server-limits.js'

export type CreateSandboxAppParameters = {
  /** Its logger and clock: the admin routes and the error handler need nothing else of it. */
  venue: Pick<SandboxVenue, 'logger' | 'clock'>
  desks: readonly SandboxDesk[]
  faults: FaultInjector
  /** Body limit and timeouts; defaults in server-limits.ts. */
  limits?: Partial<SandboxServerLimits> | undefined
}

/** The sandbox's HTTP server: JSON everywhere, errors as `{ error }`, faults injected before routing. */
export function createSandboxApp({ venue, desks, faults, limits: limitsInput }: CreateSandboxAppParameters): FastifyInstance {
  const limits = resolveSandboxServerLimits(limitsInput)
  const app = Fastify({
    logger: false,
    ...serverOptionsOf(limits),
    clientErrorHandler: answerClientError(limits.requestTimeoutMs),
    // Stopping the sandbox ends every connection at once: a client's keep-alive or in-flight request must not hold it open.
    forceCloseConnections: true,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 300 },
  })
  // Bigints must never leave as numbers: a stray one becomes a decimal string.
  app.setReplySerializer((payload) => JSON.stringify(payload, (_key, value) => (typeof value === 'bigint' ? value.toString() : value)))

  app.addHook('onRequest', async (request, reply) => {
    const path = request.url.split('?')[0] ?? request.url
    if (path.startsWith('/_sandbox/')) return
    const rule = faults.match(request.method, path)
    if (!rule) return
    if (rule.latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, rule.latencyMs))
    if (rule.drop) {
      request.raw.socket.destroy()
      return reply.hijack()
    }
    if (rule.status !== undefined) return sendFault(reply, rule)
  })

  app.addHook('onResponse', drainUnreadBody)

  app.setErrorHandler((error, request, reply) => {
    if (error instanceof ApiError) return reply.status(error.status).send({ error: error.message, ...error.extra })
    if ((error as { code?: string }).code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      // fastify asks to close after refusing a body; closing with the body unread would reset the connection.
      reply.removeHeader('connection')
      const message = `${commonErrors.payloadTooLarge.message}: the request body is over the limit of ${limits.bodyLimitBytes} bytes`
      return reply.status(commonErrors.payloadTooLarge.status).send({ error: message })
    }
    const statusCode = (error as { statusCode?: number }).statusCode
    if (statusCode && statusCode >= 400 && statusCode < 500) {
      return reply.status(statusCode).send({ error: `Bad request: ${(error as Error).message}` })
    }
    venue.logger.error({ err: error, method: request.method, url: request.url }, 'sandbox handler failed')
    return reply.status(500).send({ error: 'Internal error' })
  })
  app.setNotFoundHandler((request, reply) =>
    reply
      .status(commonErrors.notFound.status)
      .send({ error: `${commonErrors.notFound.message}: ${request.method} ${request.url.split('?')[0]}` }),
  )

  registerAdminRoutes(app, venue, faults)
  for (const desk of desks) desk.register(app)
  return app
}

function sendFault(reply: import('fastify').FastifyReply, rule: FaultRule) {
  const status = rule.status ?? 500
  if (status === 429 && rule.retryAfterSeconds !== undefined) reply.header('retry-after', String(rule.retryAfterSeconds))
  if (rule.body === 'empty') return reply.status(status).type('application/json').send('')
  if (rule.body === 'non-json') return reply.status(status).type('text/html').send('<html><body>upstream error</body></html>')
  return reply.status(status).send({ error: status === 429 ? commonErrors.rateLimited.message : 'Internal error (injected)' })
}

/** `/_sandbox/...`: controls of the emulator itself, never part of the service's API. */
function registerAdminRoutes(app: FastifyInstance, venue: Pick<SandboxVenue, 'clock'>, faults: FaultInjector): void {
  app.get('/_sandbox/faults', async () => ({ faults: faults.list() }))
  app.post('/_sandbox/faults', async (request) => {
    try {
      return { id: faults.add(request.body as never) }
    } catch (cause) {
      throw new ApiError(commonErrors.validation, { message: `Validation failed: ${(cause as Error).message}` })
    }
  })
  app.delete('/_sandbox/faults', async () => {
    faults.clear()
    return { cleared: true }
  })
  app.get('/_sandbox/time', async () => {
    const nowMs = venue.clock.now()
    return { now: Math.floor(nowMs / 1000), nowMs, speed: venue.clock.speed }
  })
}
