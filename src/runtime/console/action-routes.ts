import { randomUUID } from 'node:crypto'
import type { FastifyRequest } from 'fastify'
import { z } from 'zod'
import { isFinalStatus } from '../../domain/order-status.js'
import { type ActionName, actionAnswerOf, actionAnswerSchema, actionBodySchema, killSwitchBodySchema } from './action-answer.js'
import { type ConsoleRoute, defineRoute } from './console-route.js'
import type { ConsoleSources } from './console-sources.js'
import { ConsoleRefusal } from './error-answer.js'
import type { createOperatorActions } from './operator-actions.js'

export type ActionRouteSources = ConsoleSources & { actions: ReturnType<typeof createOperatorActions> }

const strategyParams = z.object({ name: z.string().min(1).max(200) })
const orderParams = z.object({ id: z.string().min(1).max(200) })
const idempotencyKey = /^[\w.:-]{8,128}$/

/** The request's key: the Idempotency-Key header, else the body's actionId, else a fresh one (no replay possible). */
function keyOf(request: FastifyRequest, body: { actionId?: string | undefined }): string {
  const header = request.headers['idempotency-key']
  if (typeof header === 'string') {
    if (!idempotencyKey.test(header)) {
      throw new ConsoleRefusal(400, {
        error: 'invalid request header',
        issues: [{ where: 'header.Idempotency-Key', message: 'expected 8 to 128 letters, digits, "_", ".", ":" or "-"' }],
      })
    }
    return header
  }
  return body.actionId ?? `auto:${randomUUID()}`
}

/** POST routes of the console: each journaled with who asked and its outcome, idempotent by key. */
export function actionRoutes(sources: ActionRouteSources): ConsoleRoute[] {
  const { journal, bot, strategies, killSwitch, actions } = sources
  const strategyNamed = (name: string) => {
    const strategy = strategies.find((candidate) => candidate.name === name)
    if (!strategy) {
      throw new ConsoleRefusal(404, { error: `no strategy named ${name}; the bot runs ${strategies.map((s) => s.name).join(', ')}` })
    }
    return strategy
  }
  const run = async (
    action: ActionName,
    target: string | null,
    { request, body, who }: { request: FastifyRequest; body: Record<string, unknown> & { actionId?: string | undefined }; who: string },
    act: () => Promise<Record<string, unknown>>,
  ) => {
    const { actionId: _actionId, ...rest } = body
    const done = await actions.run({ key: keyOf(request, body), action, target, request: rest, who, act })
    return { status: done.action.status === 'failed' ? 500 : 200, answer: actionAnswerOf(done.action, done.replayed) }
  }
  const killSwitchState = () => ({
    tripped: killSwitch.isTripped(),
    reason: killSwitch.reason ?? null,
    source: killSwitch.source ?? null,
    cancelOpenOrders: killSwitch.cancelOpenOrders,
  })
  const common = { action: true, answer: actionAnswerSchema, body: actionBodySchema, refusals: [404, 409, 500] } as const

  return [
    defineRoute({
      ...common,
      method: 'POST',
      path: '/api/strategies/:name/pause',
      summary: 'Pause a strategy: it gets no events until resumed (pausing a paused one changes nothing)',
      params: strategyParams,
      handle: ({ params, body, request, caller }) => {
        const strategy = strategyNamed(params.name)
        return run('pause-strategy', strategy.name, { request, body, who: caller.who }, async () => {
          const changed = !strategy.stats().paused
          strategy.pause()
          return { changed, pausedBy: strategy.stats().pausedBy }
        })
      },
    }),
    defineRoute({
      ...common,
      method: 'POST',
      path: '/api/strategies/:name/resume',
      summary: 'Resume a paused strategy (its consecutive failures reset)',
      params: strategyParams,
      handle: ({ params, body, request, caller }) => {
        const strategy = strategyNamed(params.name)
        return run('resume-strategy', strategy.name, { request, body, who: caller.who }, async () => {
          const { paused, pausedBy } = strategy.stats()
          strategy.resume()
          return { changed: paused, wasPausedBy: pausedBy }
        })
      },
    }),
    defineRoute({
      ...common,
      method: 'POST',
      path: '/api/orders/:id/cancel',
      summary: 'Cancel one order through the executor (a final or Market order is reported, not cancelled)',
      params: orderParams,
      handle: ({ params, body, request, caller }) =>
        run('cancel-order', params.id, { request, body, who: caller.who }, async () => {
          const outcomes = await bot.cancel([params.id])
          if (outcomes.some((outcome) => outcome.outcome === 'failed')) {
            throw new Error(outcomes.map((outcome) => outcome.detail).join('; '))
          }
          return { outcomes: outcomes.map(({ id, orderId, outcome, detail }) => ({ id, orderId, outcome, detail })) }
        }),
    }),
    defineRoute({
      ...common,
      method: 'POST',
      path: '/api/strategies/:name/cancel-orders',
      summary: 'Cancel every open order of a strategy through the executor',
      params: strategyParams,
      handle: ({ params, body, request, caller }) => {
        const strategy = strategyNamed(params.name)
        return run('cancel-strategy-orders', strategy.name, { request, body, who: caller.who }, async () => {
          const open = journal
            .openOrders()
            .filter((order) => journal.getIntent(order.intentId)?.strategy === strategy.name && !isFinalStatus(order.mode, order.status))
          const outcomes = open.length === 0 ? [] : await bot.cancel(open.map((order) => order.id))
          const failed = outcomes.filter((outcome) => outcome.outcome === 'failed')
          if (failed.length > 0) throw new Error(failed.map((outcome) => `${outcome.id}: ${outcome.detail}`).join('; '))
          return { outcomes: outcomes.map(({ id, orderId, outcome, detail }) => ({ id, orderId, outcome, detail })) }
        })
      },
    }),
    defineRoute({
      ...common,
      method: 'POST',
      path: '/api/kill-switch/engage',
      summary: 'Engage the kill switch: no new intents; with cancelOpenOrders, open orders are cancelled at once',
      body: killSwitchBodySchema,
      handle: ({ body, request, caller }) =>
        run('engage-kill-switch', null, { request, body, who: caller.who }, async () => {
          killSwitch.engage({ reason: `${body.reason} (${caller.who})`, cancelOpenOrders: body.cancelOpenOrders })
          // The bot's pass enforces it now (cancelling when asked) rather than at the next interval.
          const pass = bot.stats().running ? await bot.reconcile() : undefined
          return { killSwitch: killSwitchState(), reconciled: pass?.ok ?? false }
        }),
    }),
    defineRoute({
      ...common,
      method: 'POST',
      path: '/api/kill-switch/release',
      summary: 'Release the operator’s kill switch (a kill-switch file or a signal still hold it)',
      handle: ({ body, request, caller }) =>
        run('release-kill-switch', null, { request, body, who: caller.who }, async () => {
          killSwitch.release()
          return { killSwitch: killSwitchState() }
        }),
    }),
    defineRoute({
      ...common,
      method: 'POST',
      path: '/api/reconcile',
      summary: 'Run a reconciliation pass now (after the one running, if any)',
      handle: ({ body, request, caller }) =>
        run('reconcile', null, { request, body, who: caller.who }, async () => {
          const pass = await bot.reconcile()
          if (!pass.ok) throw new Error('the reconciliation pass failed; the bot logged why')
          return { ok: pass.ok, at: pass.at }
        }),
    }),
  ]
}
