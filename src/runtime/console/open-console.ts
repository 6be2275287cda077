import type { FastifyInstance } from 'fastify'
import { z } from 'zod'
import { clockSpeed } from '../../time/clock-timer.js'
import { createActionRateLimit } from './action-rate-limit.js'
import { actionRoutes } from './action-routes.js'
import { createBalanceCache } from './balance-cache.js'
import { consoleEventSchema } from './console-event.js'
import { createConsoleGuard } from './console-guard.js'
import { type ConsoleRoute, defineRoute, registerRoute } from './console-route.js'
import type { ConsoleSources } from './console-sources.js'
import { type ConsoleToken, isLoopbackHost } from './console-token.js'
import { registerDashboard } from './dashboard/register-dashboard.js'
import { startEquitySampler } from './equity-series.js'
import { ConsoleRefusal, errorAnswerSchema } from './error-answer.js'
import { createEventStream } from './event-stream.js'
import { jsonSchemaOf, openApiDocumentOf } from './openapi-document.js'
import { createOperatorActions } from './operator-actions.js'
import { readRoutes } from './read-routes.js'
import { createStrategyWatch } from './strategy-watch.js'
import { createValuation } from './valuation.js'

export type OpenConsoleParameters = ConsoleSources & {
  /** resolveConsoleToken's answer. */
  token: ConsoleToken | undefined
  /** Real ms between reads of the journal for the event stream (default 250). */
  eventPollMs?: number | undefined
}

/** The console as the ops server mounts it. */
export type OperatorConsole = {
  /** Registers /api/* on the ops server. */
  mount: (app: FastifyInstance) => void
  routes: readonly ConsoleRoute[]
  /** Ends the event streams and stops polling (before the server closes: it waits for open connections). */
  close: () => void
}

const lastEventIdSchema = z.string().regex(/^\d{1,15}$/, 'expected the id of an event received before')

/**
 * The operator console: JSON reads and actions under /api/, their OpenAPI document at /api/openapi.json, and the
 * live event stream at /api/events. Actions left running by a bot that stopped are journaled as failed first.
 */
export function openConsole({ token, eventPollMs, ...sources }: OpenConsoleParameters): OperatorConsole {
  const { config, journal, logger } = sources
  const log = logger.child({ unit: 'console' })
  const interrupted = journal.failInterruptedActions('the bot stopped before this action finished; it may have acted in part')
  if (interrupted > 0) log.warn({ interrupted }, 'operator actions left running by the previous run were marked failed')
  log.info(
    { actions: token ? `need the bearer token of ${token.name}` : 'refused: no token configured (ops.auth)' },
    'operator console under /api/',
  )
  const guard = createConsoleGuard({
    token,
    tokenForReads: !isLoopbackHost(config.ops.host),
    takeAction: createActionRateLimit(config.ops.actionsPerMinute),
  })
  const startedAt = Date.now()
  const balances = createBalanceCache(sources, sources.clock)
  const valuation = createValuation(sources)
  // One point per reconciliation interval (real ms), counted on the bot's clock.
  const equity = startEquitySampler({
    balances,
    valuation,
    clock: sources.clock,
    intervalMs: config.reconcile.intervalMs * clockSpeed(sources.clock),
  })
  const actions = createOperatorActions(journal, log)
  const events = createEventStream({
    journal,
    logger: log,
    pollMs: eventPollMs,
    beforePoll: createStrategyWatch(sources.strategies, journal),
  })
  const routes: ConsoleRoute[] = [
    ...readRoutes({ ...sources, balances, valuation, equity, startedAt }),
    ...actionRoutes({ ...sources, actions }),
  ]
  const eventsQuery = z.object({ lastEventId: lastEventIdSchema.optional() })
  const document = openApiDocumentOf(
    [
      ...routes,
      defineRoute({
        method: 'GET',
        path: '/api/openapi.json',
        summary: 'This document',
        action: false,
        answer: z.record(z.string(), z.unknown()),
        handle: () => ({ answer: {} }),
      }),
    ],
    [
      {
        path: '/api/events',
        method: 'get',
        operation: {
          summary:
            'Server-Sent Events: order status changes, fills, refunds, intent results, strategy events and operator actions. Each `id:` is a journal position: reconnect with Last-Event-ID (or ?lastEventId=) to get exactly what was missed; without it, live events only. Heartbeat comments every 15 s.',
          parameters: [
            { name: 'Last-Event-ID', in: 'header', required: false, schema: jsonSchemaOf(lastEventIdSchema, 'input') },
            { name: 'lastEventId', in: 'query', required: false, schema: jsonSchemaOf(lastEventIdSchema, 'input') },
          ],
          responses: {
            200: {
              description: 'an endless text/event-stream; each `data:` is one event',
              content: { 'text/event-stream': { schema: jsonSchemaOf(consoleEventSchema, 'output') } },
            },
            401: {
              description: 'no bearer token, or a wrong one',
              content: { 'application/json': { schema: jsonSchemaOf(errorAnswerSchema, 'output') } },
            },
          },
        },
      },
    ],
  )

  return {
    routes,
    mount: (app) => {
      for (const route of routes) registerRoute(app, route, guard)
      app.get('/api/openapi.json', async (request, reply) => {
        try {
          guard(request, { action: false })
        } catch (error) {
          if (!(error instanceof ConsoleRefusal)) throw error
          reply.code(error.status).headers(error.headers)
          return error.answer
        }
        return document
      })
      app.get('/api/events', async (request, reply) => {
        let lastEventId: number | undefined
        try {
          guard(request, { action: false })
          const header = request.headers['last-event-id']
          const query = eventsQuery.safeParse(request.query ?? {})
          const given = typeof header === 'string' ? header : query.success ? query.data.lastEventId : undefined
          if (!query.success || (given !== undefined && !lastEventIdSchema.safeParse(given).success)) {
            throw new ConsoleRefusal(400, {
              error: 'invalid request',
              issues: [{ where: 'header.Last-Event-ID', message: 'expected the id of an event received before' }],
            })
          }
          lastEventId = given === undefined ? undefined : Number(given)
        } catch (error) {
          if (!(error instanceof ConsoleRefusal)) throw error
          reply.code(error.status).headers(error.headers)
          return error.answer
        }
        reply.hijack()
        await events.attach(reply.raw, lastEventId)
      })
      registerDashboard(app)
    },
    close: () => {
      equity.stop()
      events.close()
    },
  }
}
