import { request as httpRequest } from 'node:http'
import { formatUnits } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseConfigDocument } from '../../../src/config/load-config.js'
import { summarizeJournal } from '../../../src/journal/journal-summary.js'
import { actionAnswerSchema } from '../../../src/runtime/console/action-answer.js'
import { balancesAnswerSchema } from '../../../src/runtime/console/balance-answer.js'
import { consoleEventOf, consoleEventSchema } from '../../../src/runtime/console/console-event.js'
import { equityAnswerSchema } from '../../../src/runtime/console/equity-answer.js'
import { errorAnswerSchema } from '../../../src/runtime/console/error-answer.js'
import {
  fillsAnswerSchema,
  orderAnswerSchema,
  ordersAnswerSchema,
  refundsAnswerSchema,
} from '../../../src/runtime/console/order-answers.js'
import { statusAnswerSchema } from '../../../src/runtime/console/status-answer.js'
import { strategiesAnswerSchema } from '../../../src/runtime/console/strategy-answer.js'
import { type BotSession, openBot } from '../../../src/runtime/open-bot.js'
import { developmentAccounts } from '../../../src/sandbox/chains/accounts.js'
import { consoleBotConfigText } from '../../helpers/console-bot.js'
import { runDeltaflow } from '../../helpers/deltaflow-cli.js'
import { sandboxToken, useSandbox } from '../../helpers/sandbox.js'
import { createTempDirectory } from '../../helpers/temp-directory.js'
import { waitFor } from '../../helpers/wait-for.js'
import { createCapturedLogger } from './captured-logger.js'
import { openEventStream } from './sse-reader.js'

const directory = createTempDirectory('deltaflow-console-')
afterAll(() => directory.cleanup())

/** The console's token: it must never show in a log line or an answer. */
const token = 'c0ns0le-t0ken-7f3a9b2e4d6c8a1f'
const tokenEnv = 'CONSOLE_TEST_TOKEN'
const { logger, lines: logLines } = createCapturedLogger('debug')
/** Every answer's text, checked for the token at the end. */
const answers: string[] = []

describe('the operator console of a paper bot', () => {
  const sandbox = useSandbox({ chainIds: [1] })
  const usdc = () => sandboxToken(sandbox(), 1, 'USDC').address
  const weth = () => sandboxToken(sandbox(), 1, 'WETH').address
  let session: BotSession
  let base: string

  async function call(
    method: 'GET' | 'POST',
    path: string,
    options: { token?: string; headers?: Record<string, string>; body?: unknown } = {},
  ) {
    const headers: Record<string, string> = { ...options.headers }
    if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`
    if (options.body !== undefined) headers['content-type'] = 'application/json'
    const response = await fetch(`${base}${path}`, {
      method,
      headers,
      ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
    })
    const text = await response.text()
    answers.push(text)
    return { status: response.status, headers: response.headers, json: JSON.parse(text) as unknown }
  }
  const act = (path: string, key: string, body?: unknown) =>
    call('POST', path, { token, headers: { 'idempotency-key': key }, ...(body !== undefined ? { body } : {}) })

  beforeAll(async () => {
    const text = consoleBotConfigText({ sandbox: sandbox(), db: directory.path('console.sqlite'), keyEnv: 'CONSOLE_TEST_KEY', tokenEnv })
    const env = { CONSOLE_TEST_KEY: developmentAccounts[4]?.privateKey ?? '', [tokenEnv]: token }
    session = await openBot({ document: parseConfigDocument(text, 'bot.yaml', { env }), live: false, logger, env })
    base = session.ops?.url ?? ''
    await session.bot.start()
    await waitFor('a fill of the taker and four open ladder orders', () => {
      const ladderOpen = session.journal.orderPage({ limit: 10, strategy: 'far-ladder', open: true })
      return session.journal.fillCount() > 0 && ladderOpen.length === 4 && ladderOpen.every((order) => order.submitted) ? true : undefined
    })
  }, 60_000)
  afterAll(async () => {
    if (session?.bot.stats().running) await session.bot.stop()
    await session?.close()
  })

  describe('reads', () => {
    it('GET /api/status answers the mode, venue, chains, kill switch and last reconciliation', async () => {
      const { status, json } = await call('GET', '/api/status')
      expect(status).toBe(200)
      const answer = statusAnswerSchema.parse(json)
      expect(answer).toMatchObject({
        mode: 'paper',
        running: true,
        account: session.account.address,
        chains: [{ chainId: 1, available: true }],
        killSwitch: { tripped: false, reason: null, source: null, cancelOpenOrders: false },
      })
      expect(answer.venue).toBe(new URL(sandbox().url).origin)
      expect(answer.reconciliation.passes).toBeGreaterThan(0)
      expect(answer.reconciliation.lastAt).not.toBeNull()
    })

    it('GET /api/strategies answers each strategy with its state, orders and token flows from the journal', async () => {
      const answer = strategiesAnswerSchema.parse((await call('GET', '/api/strategies')).json)
      expect(answer.strategies.map((strategy) => strategy.name)).toEqual(['taker', 'far-ladder'])
      const [taker, ladder] = answer.strategies
      expect(ladder).toMatchObject({ state: 'running', pausedBy: null, openOrders: 4, errors: { failures: 0 } })
      expect(ladder?.config).toMatchObject({ levels: 4, sizePerLevel: '10000000000000000' })
      const flows = session.journal.tokenFlows().filter((flow) => flow.strategy === 'taker')
      expect(taker?.flows).toEqual(
        flows.map((flow) =>
          expect.objectContaining({
            chainId: flow.chainId,
            token: flow.token,
            spent: flow.spent.toString(),
            received: flow.received.toString(),
            refunded: flow.refunded.toString(),
            net: (flow.received + flow.refunded - flow.spent).toString(),
          }),
        ),
      )
      expect(taker?.flows.some((flow) => flow.net.startsWith('-'))).toBe(true)
    })

    it('names each token by its symbol and gives amounts in token units beside the raw ones: the taker sold 1000 USDC for WETH', async () => {
      const { strategies } = strategiesAnswerSchema.parse((await call('GET', '/api/strategies')).json)
      const taker = strategies.find((strategy) => strategy.name === 'taker')
      const usdcFlow = taker?.flows.find((flow) => flow.token.toLowerCase() === usdc().toLowerCase())
      const wethFlow = taker?.flows.find((flow) => flow.token.toLowerCase() === weth().toLowerCase())
      expect(usdcFlow).toMatchObject({
        net: '-1000000000',
        netUnits: '-1000',
        label: { symbol: 'USDC', decimals: 6, name: 'USDC', chainId: 1 },
      })
      expect(wethFlow?.label).toMatchObject({ symbol: 'WETH', decimals: 18, name: 'WETH' })
      expect(wethFlow?.netUnits).toBe(formatUnits(BigInt(wethFlow?.net ?? '0'), 18))
      expect(Number(wethFlow?.netUnits)).toBeGreaterThan(0)

      const { orders } = ordersAnswerSchema.parse((await call('GET', '/api/orders?strategy=taker')).json)
      expect(orders[0]).toMatchObject({
        srcAmount: '1000000000',
        srcAmountUnits: '1000',
        srcLabel: { symbol: 'USDC', decimals: 6 },
        destLabel: { symbol: 'WETH', decimals: 18 },
      })
      expect(orders[0]?.destAmountUnits).toBe(formatUnits(BigInt(orders[0]?.destAmount ?? '0'), 18))

      const { fills } = fillsAnswerSchema.parse((await call('GET', '/api/fills?strategy=taker')).json)
      expect(fills[0]).toMatchObject({ spentUnits: '1000', spentLabel: { symbol: 'USDC' }, receivedLabel: { symbol: 'WETH' } })
      expect(fills[0]?.receivedUnits).toBe(formatUnits(BigInt(fills[0]?.received ?? '0'), 18))
      const one = orderAnswerSchema.parse((await call('GET', `/api/orders/${encodeURIComponent(fills[0]?.orderId ?? '')}`)).json)
      expect(one.order.srcAmountUnits).toBe('1000')
      expect(one.fills[0]?.receivedUnits).toBe(fills[0]?.receivedUnits)

      // The OpenAPI document shows the labels.
      const document = (await call('GET', '/api/openapi.json')).json as { paths: Record<string, { get: unknown }> }
      expect(JSON.stringify(document.paths['/api/orders']?.get)).toContain('srcAmountUnits')
      expect(JSON.stringify(document.paths['/api/strategies']?.get)).toContain('pnlUnpriced')
    })

    it('values each strategy’s net flows in USDC at the latest price the bot has seen', async () => {
      const usdcToken = { chainId: 1, token: usdc() }
      // The feed keeps quoting: a read counts when the price held still around it.
      for (let attempt = 1; ; attempt++) {
        const flows = session.journal.tokenFlows().filter((flow) => flow.strategy === 'taker')
        const expected = () =>
          flows.reduce((sum, flow) => {
            const valued = session.prices?.value(flow, flow.received + flow.refunded - flow.spent, usdcToken)
            if (!valued) throw new Error(`the bot saw no price between ${flow.token} and USDC`)
            return sum + valued.value
          }, 0n)
        const before = expected()
        const { strategies } = strategiesAnswerSchema.parse((await call('GET', '/api/strategies')).json)
        const after = expected()
        if (before !== after && attempt < 5) continue
        expect(before, 'the price held still during one of 5 reads').toBe(after)
        const taker = strategies.find((strategy) => strategy.name === 'taker')
        expect(taker?.pnlUnpriced).toBeNull()
        expect(taker?.pnl).toMatchObject({ raw: after.toString(), token: { symbol: 'USDC', decimals: 6 } })
        expect(taker?.pnl?.value).toBe(formatUnits(after, 6))
        expect(taker?.pnl?.pricedAt).toEqual(expect.any(Number))
        // 1000 USDC sold for WETH worth about as much: the PnL is the spread and fees, a small part of it.
        expect(Math.abs(Number(taker?.pnl?.value))).toBeLessThan(100)
        // The ladder has no fill: nothing to value.
        expect(strategies.find((strategy) => strategy.name === 'far-ladder')?.pnl).toMatchObject({ raw: '0' })
        break
      }
    })

    it('GET /api/orders filters and pages through every order once, newest first', async () => {
      const open = ordersAnswerSchema.parse((await call('GET', '/api/orders?strategy=far-ladder&open=true&chain=1')).json)
      expect(open.orders).toHaveLength(4)
      expect(open.orders.every((order) => order.strategy === 'far-ladder' && order.open && order.mode === 'delta')).toBe(true)
      const seen: string[] = []
      let cursor: string | null = null
      do {
        const page = ordersAnswerSchema.parse((await call('GET', `/api/orders?limit=2${cursor === null ? '' : `&cursor=${cursor}`}`)).json)
        expect(page.orders.length).toBeLessThanOrEqual(2)
        seen.push(...page.orders.map((order) => order.id))
        cursor = page.nextCursor
      } while (cursor !== null)
      const all = session.journal.listOrders().map((order) => order.id)
      expect([...seen].sort()).toEqual([...all].sort())
      expect(new Set(seen).size).toBe(seen.length)
      const taker = ordersAnswerSchema.parse((await call('GET', '/api/orders?strategy=taker&mode=delta')).json)
      expect(taker.orders.every((order) => order.strategy === 'taker')).toBe(true)
    })

    it('GET /api/orders/:id answers the order with its status history and fills, and 404 for an unknown one', async () => {
      const [fill] = session.journal.recentFills(1)
      const { json } = await call('GET', `/api/orders/${encodeURIComponent(fill?.orderId ?? '')}`)
      const answer = orderAnswerSchema.parse(json)
      expect(answer.order).toMatchObject({ id: fill?.orderId, strategy: 'taker' })
      expect(answer.history.map((change) => change.status)).toEqual(
        session.journal.orderHistory(fill?.orderId ?? '').map((change) => change.status),
      )
      expect(answer.fills.map((one) => one.txHash)).toContain(fill?.txHash)
      const missing = await call('GET', '/api/orders/no-such-order')
      expect(missing.status).toBe(404)
      expect(errorAnswerSchema.parse(missing.json).error).toContain('no-such-order')
    })

    it('GET /api/fills and /api/refunds page the journal, filtered by strategy', async () => {
      const fills = fillsAnswerSchema.parse((await call('GET', '/api/fills?strategy=taker&limit=10')).json)
      expect(fills.fills.length).toBe(session.journal.fillPage({ limit: 10, strategy: 'taker' }).length)
      expect(fills.fills.length).toBeGreaterThan(0)
      expect(fills.fills[0]).toMatchObject({ strategy: 'taker', chainId: 1 })
      const refunds = refundsAnswerSchema.parse((await call('GET', '/api/refunds')).json)
      expect(refunds).toEqual({ refunds: [], nextCursor: null })
    })

    it('GET /api/balances reads the wallet’s tokens once and answers from its cache for a few seconds', async () => {
      const first = balancesAnswerSchema.parse((await call('GET', '/api/balances')).json)
      expect(first.error).toBeNull()
      const usdc = sandboxToken(sandbox(), 1, 'USDC').address
      const held = first.balances.find((balance) => balance.chainId === 1 && balance.token.toLowerCase() === usdc.toLowerCase())
      expect(held?.label).toMatchObject({ symbol: 'USDC', decimals: 6 })
      expect(held?.amountUnits).toBe(formatUnits(BigInt(held?.amount ?? '0'), 6))
      const second = balancesAnswerSchema.parse((await call('GET', '/api/balances')).json)
      expect(second.readAt).toBe(first.readAt)
    })

    it('GET /api/equity answers the wallet’s value in USDC over time, and the taker’s cumulative net flows per token', async () => {
      const answer = await waitFor('two points of the wallet’s value', async () => {
        const read = equityAnswerSchema.parse((await call('GET', '/api/equity?strategy=taker')).json)
        return read.value.points.filter((point) => point.unpriced.length === 0).length >= 2 ? read : undefined
      })
      expect(answer.value).toMatchObject({ token: { symbol: 'USDC', decimals: 6 }, reason: null })
      const times = answer.value.points.map((point) => point.at)
      expect(times).toEqual([...times].sort((a, b) => a - b))
      const last = answer.value.points.at(-1)
      expect(last?.value).toBe(formatUnits(BigInt(last?.raw ?? '0'), 6))
      // The wallet holds its USDC and the WETH bought: worth more than the USDC it holds alone.
      const balances = balancesAnswerSchema.parse((await call('GET', '/api/balances')).json)
      const usdcHeld = balances.balances.find((balance) => balance.label.symbol === 'USDC')
      expect(BigInt(last?.raw ?? '0')).toBeGreaterThan(BigInt(usdcHeld?.amount ?? '0'))
      const flows = answer.flows
      expect(flows.map((series) => series.label.symbol).sort()).toEqual(['USDC', 'WETH'])
      const lastNet = Object.fromEntries(flows.map((series) => [`${series.chainId}:${series.token}`, series.points.at(-1)?.net]))
      const expected = Object.fromEntries(
        session.journal
          .tokenFlows()
          .filter((flow) => flow.strategy === 'taker')
          .map((flow) => [`${flow.chainId}:${flow.token}`, (flow.received + flow.refunded - flow.spent).toString()]),
      )
      expect(lastNet).toEqual(expected)
    })

    it('answers a bad query with 400 naming where and what was expected', async () => {
      const { status, json } = await call('GET', '/api/orders?limit=0&mode=barter')
      expect(status).toBe(400)
      const answer = errorAnswerSchema.parse(json)
      expect(answer.issues?.map((issue) => issue.where).sort()).toEqual(['query.limit', 'query.mode'])
    })

    it('serves an OpenAPI 3.1 document listing every route', async () => {
      const { status, json } = await call('GET', '/api/openapi.json')
      expect(status).toBe(200)
      const document = json as { openapi: string; paths: Record<string, Record<string, unknown>> }
      expect(document.openapi).toBe('3.1.0')
      const listed = Object.entries(document.paths).flatMap(([path, methods]) => Object.keys(methods).map((method) => `${method} ${path}`))
      const routes = (session.console?.routes ?? []).map(
        (route) => `${route.method.toLowerCase()} ${route.path.replace(/:(\w+)/g, '{$1}')}`,
      )
      expect(routes).toHaveLength(15)
      expect(listed.sort()).toEqual([...routes, 'get /api/events', 'get /api/openapi.json'].sort())
      const pause = document.paths['/api/strategies/{name}/pause']?.post as { parameters: { name: string; in: string }[] }
      expect(pause.parameters).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'name', in: 'path' })]))
    })
  })

  describe('refusals', () => {
    it('refuses an action without a token (401) or with a wrong one (401), and acts on nothing', async () => {
      const none = await call('POST', '/api/strategies/far-ladder/pause')
      expect(none.status).toBe(401)
      expect(none.headers.get('www-authenticate')).toContain('Bearer')
      const wrong = await call('POST', '/api/strategies/far-ladder/pause', { token: 'not-the-token' })
      expect(wrong.status).toBe(401)
      expect(errorAnswerSchema.parse(wrong.json).error).toMatch(/not the console token/)
      expect(session.strategies.find((strategy) => strategy.name === 'far-ladder')?.stats().paused).toBe(false)
      expect(session.journal.recentOperatorActions(100)).toEqual([])
    })

    it('refuses a read with a wrong token, and a cross-origin action even with the token; answers no CORS header', async () => {
      expect((await call('GET', '/api/status', { token: 'not-the-token' })).status).toBe(401)
      const foreign = await call('POST', '/api/reconcile', {
        token,
        headers: { origin: 'http://evil.example', 'sec-fetch-site': 'cross-site' },
      })
      expect(foreign.status).toBe(403)
      expect(foreign.headers.get('access-control-allow-origin')).toBeNull()
      const read = await call('GET', '/api/status', { headers: { origin: 'http://evil.example' } })
      expect(read.headers.get('access-control-allow-origin')).toBeNull()
    })

    it('refuses a request addressed to another host name (DNS rebinding), reads and actions alike', async () => {
      const port = new URL(base).port
      for (const [method, path] of [
        ['GET', '/api/status'],
        ['POST', '/api/reconcile'],
      ] as const) {
        const answer = await requestWithHost(method, `${base}${path}`, `rebound.example:${port}`, token)
        expect(answer.status, `${method} ${path}`).toBe(403)
        expect(errorAnswerSchema.parse(JSON.parse(answer.body)).error).toMatch(/loopback host/)
      }
      expect((await requestWithHost('GET', `${base}/api/status`, `localhost:${port}`, token)).status).toBe(200)
    })
  })

  describe('actions', () => {
    it('pauses and resumes a strategy, once per key, journaled with who asked and when', async () => {
      const first = await act('/api/strategies/far-ladder/pause', 'pause-key-0001')
      expect(first.status).toBe(200)
      const paused = actionAnswerSchema.parse(first.json)
      expect(paused).toMatchObject({
        action: 'pause-strategy',
        target: 'far-ladder',
        status: 'done',
        requestedBy: `env ${tokenEnv}`,
        outcome: { changed: true, pausedBy: 'operator' },
        replayed: false,
      })
      const strategies = strategiesAnswerSchema.parse((await call('GET', '/api/strategies')).json)
      expect(strategies.strategies.find((strategy) => strategy.name === 'far-ladder')).toMatchObject({
        state: 'paused',
        pausedBy: 'operator',
      })

      const again = actionAnswerSchema.parse((await act('/api/strategies/far-ladder/pause', 'pause-key-0001')).json)
      expect(again).toEqual({ ...paused, replayed: true })
      const noop = actionAnswerSchema.parse((await act('/api/strategies/far-ladder/pause', 'pause-key-0002')).json)
      expect(noop).toMatchObject({ status: 'done', outcome: { changed: false } })

      const misused = await act('/api/strategies/far-ladder/resume', 'pause-key-0001')
      expect(misused.status).toBe(409)

      const resumed = actionAnswerSchema.parse((await act('/api/strategies/far-ladder/resume', 'resume-key-0001')).json)
      expect(resumed).toMatchObject({ status: 'done', outcome: { changed: true, wasPausedBy: 'operator' } })
      expect(session.strategies.find((strategy) => strategy.name === 'far-ladder')?.stats().paused).toBe(false)

      const journaled = session.journal.getOperatorAction('pause-key-0001')
      expect(journaled).toMatchObject({ action: 'pause-strategy', target: 'far-ladder', requestedBy: `env ${tokenEnv}`, status: 'done' })
      expect(journaled?.requestedAt).toBe(paused.requestedAt)
      expect(journaled?.completedAt).toBeGreaterThanOrEqual(journaled?.requestedAt ?? 0)
      expect(session.journal.recentOperatorActions(100).filter((action) => action.key.startsWith('pause-key'))).toHaveLength(2)
    })

    it('answers 404 for an unknown strategy without journaling anything', async () => {
      const before = session.journal.recentOperatorActions(100).length
      expect((await act('/api/strategies/nobody/pause', 'nobody-key-0001')).status).toBe(404)
      expect(session.journal.recentOperatorActions(100)).toHaveLength(before)
    })

    it('triggers a reconciliation pass', async () => {
      const passes = session.bot.stats().reconcilePasses
      const answer = actionAnswerSchema.parse((await act('/api/reconcile', 'reconcile-key-0001')).json)
      expect(answer).toMatchObject({ status: 'done', outcome: { ok: true } })
      expect(session.bot.stats().reconcilePasses).toBeGreaterThan(passes)
    })

    it('cancels one order, then every open order of a strategy, through the executor', async () => {
      // Paused, the ladder does not place its cancelled levels again.
      await act('/api/strategies/far-ladder/pause', 'pause-key-0003')
      const open = session.journal.orderPage({ limit: 10, strategy: 'far-ladder', open: true })
      const [one, ...rest] = open
      const single = actionAnswerSchema.parse(
        (await act(`/api/orders/${encodeURIComponent(one?.id ?? '')}/cancel`, 'cancel-key-0001')).json,
      )
      expect(single).toMatchObject({ status: 'done', target: one?.id, outcome: { outcomes: [{ orderId: one?.id, outcome: 'requested' }] } })
      const all = actionAnswerSchema.parse((await act('/api/strategies/far-ladder/cancel-orders', 'cancel-key-0002')).json)
      const outcomes = (all.outcome as { outcomes: { orderId: string; outcome: string }[] }).outcomes
      expect(
        outcomes
          .filter((outcome) => outcome.orderId !== one?.id)
          .map((outcome) => [outcome.orderId, outcome.outcome])
          .sort(),
      ).toEqual(rest.map((order) => [order.id, 'requested']).sort())
      for (const order of open) expect(['CANCELLING', 'CANCELLED']).toContain(session.journal.getOrder({ id: order.id })?.status)
    })

    it('engages the kill switch (refusing new intents) and releases it, leaving the file and signal switches alone', async () => {
      const engaged = actionAnswerSchema.parse(
        (await act('/api/kill-switch/engage', 'kill-key-0001', { reason: 'checking the console', cancelOpenOrders: true })).json,
      )
      expect(engaged).toMatchObject({
        status: 'done',
        outcome: { killSwitch: { tripped: true, source: 'operator', cancelOpenOrders: true }, reconciled: true },
      })
      const status = statusAnswerSchema.parse((await call('GET', '/api/status')).json)
      expect(status.killSwitch).toMatchObject({ tripped: true, source: 'operator', reason: `checking the console (env ${tokenEnv})` })
      const released = actionAnswerSchema.parse((await act('/api/kill-switch/release', 'kill-key-0002')).json)
      expect(released).toMatchObject({ status: 'done', outcome: { killSwitch: { tripped: false, source: null, cancelOpenOrders: false } } })
    })
  })

  describe('GET /api/events', () => {
    it('streams journal events with ids; after a disconnect, Last-Event-ID resumes with nothing lost or repeated', async () => {
      const first = await openEventStream(`${base}/api/events?lastEventId=0`)
      expect(first.response.headers.get('content-type')).toContain('text/event-stream')
      const fill = await first.waitFor((event) => event.event === 'fill', 'a fill')
      expect(consoleEventSchema.parse(JSON.parse(fill.data))).toMatchObject({ kind: 'fill', strategy: 'taker' })
      // Everything the journal held when it connected, then the live events.
      await act('/api/strategies/taker/pause', 'sse-key-0001')
      await first.waitFor((event) => event.event === 'action' && event.data.includes('sse-key-0001'), 'the pause action')
      await first.close()
      const lastId = Number(first.events.at(-1)?.id)

      // While disconnected: more actions (and whatever the bot journals).
      await act('/api/strategies/taker/resume', 'sse-key-0002')
      await act('/api/reconcile', 'sse-key-0003')

      const second = await openEventStream(`${base}/api/events`, { 'last-event-id': String(lastId) })
      await second.waitFor((event) => event.event === 'action' && event.data.includes('sse-key-0003'), 'the reconcile action')
      await second.close()

      const received = [...first.events, ...second.events]
      const ids = received.map((event) => Number(event.id))
      expect(new Set(ids).size).toBe(ids.length)
      expect(ids).toEqual([...ids].sort((a, b) => a - b))
      const upTo = ids.at(-1) ?? 0
      const journaled = session.journal
        .consoleEventsAfter({ after: 0, upTo, limit: 100_000 })
        .map((row) => consoleEventOf(row, session.journal.getOperatorActionById))
      expect(received.map((event) => JSON.parse(event.data))).toEqual(journaled)
      expect(received.map((event) => event.event)).toEqual(journaled.map((event) => event.kind))
      expect(journaled.map((event) => event.kind)).toEqual(expect.arrayContaining(['order-status', 'fill', 'intent', 'strategy', 'action']))
    })

    it('refuses a stream with a wrong token', async () => {
      const response = await fetch(`${base}/api/events`, { headers: { authorization: 'Bearer not-the-token' } })
      answers.push(await response.text())
      expect(response.status).toBe(401)
    })
  })

  describe('deltaflow status --url', () => {
    it('reads the running bot’s status and strategies through its console, in the journal summary’s shape', async () => {
      // The bot keeps running (cancels settle, the ladder re-places): the command's answer is compared with the journal
      // as it stood both before and after it, in a moment when nothing changed between the two.
      const strategiesOf = (summary: ReturnType<typeof summarizeJournal>) =>
        summary.strategies.filter((strategy) => ['far-ladder', 'taker'].includes(strategy.name))
      for (let attempt = 1; ; attempt++) {
        const before = summarizeJournal(session.journal, { recentFills: 3 })
        const { code, stdout, stderr } = await runDeltaflow(['status', '--url', base, '--token-env', tokenEnv, '--json', '--recent', '3'], {
          [tokenEnv]: token,
        })
        const expected = summarizeJournal(session.journal, { recentFills: 3 })
        expect(stderr).toBe('')
        expect(code).toBe(0)
        answers.push(stdout)
        const steady =
          before.fills === expected.fills &&
          JSON.stringify(before.orders) === JSON.stringify(expected.orders) &&
          JSON.stringify(strategiesOf(before)) === JSON.stringify(strategiesOf(expected))
        if (!steady && attempt < 5) continue
        expect(steady, 'the journal held still during one of 5 reads').toBe(true)
        const document = JSON.parse(stdout) as ReturnType<typeof summarizeJournal> & { bot: { mode: string; running: boolean } }
        expect(document.bot).toMatchObject({ mode: 'paper', running: true })
        expect(document.journal).toBe(base)
        expect(document.fills).toBe(expected.fills)
        expect(document.orders).toEqual(expected.orders)
        expect(document.strategies.map(({ name, intents, orders, net }) => ({ name, intents, orders, net }))).toEqual(
          strategiesOf(expected),
        )
        expect(document.recentFills.map((fill) => fill.txHash)).toEqual(expected.recentFills.map((fill) => fill.txHash))
        break
      }
    })

    it('names the token option when the console refuses a wrong token', async () => {
      const { code, stderr } = await runDeltaflow(['status', '--url', base, '--token-env', tokenEnv], { [tokenEnv]: 'not-the-token' })
      expect(code).not.toBe(0)
      expect(stderr).toContain('401')
      expect(stderr).toContain('--token-env')
    })
  })

  it('never writes the token in a log line or an answer', () => {
    expect(logLines.length).toBeGreaterThan(0)
    expect(logLines.filter((line) => line.includes('operator action')).length).toBeGreaterThan(0)
    expect(logLines.filter((line) => line.includes(token))).toEqual([])
    expect(answers.filter((text) => text.includes(token))).toEqual([])
    const actions = session.journal.recentOperatorActions(1_000)
    expect(JSON.stringify(actions)).not.toContain(token)
  })
})

/** A request with a Host header of our choosing (fetch sends the URL's own), as a re-pointed name would arrive. */
function requestWithHost(method: 'GET' | 'POST', url: string, host: string, bearer: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      url,
      { method, headers: { host, authorization: `Bearer ${bearer}`, 'idempotency-key': `host-${host}` } },
      (incoming) => {
        let body = ''
        incoming.setEncoding('utf8')
        incoming.on('data', (chunk: string) => {
          body += chunk
        })
        incoming.on('end', () => resolve({ status: incoming.statusCode ?? 0, body }))
      },
    )
    outgoing.on('error', reject)
    outgoing.end()
  })
}
