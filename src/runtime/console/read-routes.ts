import { z } from 'zod'
import { isFinalStatus, type OrderMode, orderModes, orderStatusSchema } from '../../domain/order-status.js'
import { withoutUrlSecrets } from '../../errors/url-secrets.js'
import { findOrders } from '../../journal/find-orders.js'
import { summarizeJournal } from '../../journal/journal-summary.js'
import { balancesAnswerSchema } from './balance-answer.js'
import type { createBalanceCache } from './balance-cache.js'
import { type ConsoleRoute, defineRoute } from './console-route.js'
import type { ConsoleSources } from './console-sources.js'
import { equityAnswerSchema, equityQuerySchema, netFlowsOf } from './equity-answer.js'
import type { EquitySampler } from './equity-series.js'
import { ConsoleRefusal } from './error-answer.js'
import {
  fillsAnswerSchema,
  fillViewOf,
  orderAnswerSchema,
  ordersAnswerSchema,
  orderViewOf,
  refundsAnswerSchema,
  refundViewOf,
  tokensOfOrder,
} from './order-answers.js'
import { chainQuery, nextCursorOf, pageQueryShape } from './page-query.js'
import { statusAnswerSchema } from './status-answer.js'
import { strategiesAnswerSchema } from './strategy-answer.js'
import { type TokenView, tokenViewOf } from './token-view.js'
import type { Valuation } from './valuation.js'

export type ReadRouteSources = ConsoleSources & {
  balances: ReturnType<typeof createBalanceCache>
  valuation: Valuation
  equity: EquitySampler
  /** Real ms when the console started. */
  startedAt: number
}

const booleanQuery = z.enum(['true', 'false']).transform((value) => value === 'true')
const position = (cursor: string | undefined) => (cursor === undefined ? undefined : Number(cursor))
const flowQuery = z.object({
  ...pageQueryShape,
  strategy: z.string().min(1).optional(),
  orderId: z.string().min(1).optional(),
  chain: chainQuery,
})

/** GET routes of the console: what the bot is doing, from its stats and the journal. */
export function readRoutes(sources: ReadRouteSources): ConsoleRoute[] {
  const { config, journal, clock, bot, strategies, killSwitch, chains, account, venueUrl, connections, labels, valuation } = sources
  const tokens: TokenView = tokenViewOf(labels)
  /** The orders of fills (their tokens name the amounts), their labels read. */
  async function ordersOfFills(fills: readonly { orderId: string }[]) {
    const orders = new Map(
      [...new Set(fills.map((fill) => fill.orderId))].flatMap((id) => {
        const order = journal.getOrder({ id })
        return order ? [[id, order] as const] : []
      }),
    )
    await labels.read([...orders.values()].flatMap(tokensOfOrder))
    return orders
  }
  return [
    defineRoute({
      method: 'GET',
      path: '/api/status',
      summary: 'Mode, venue, chains, uptime, kill switch, last reconciliation and the bot’s counters',
      action: false,
      answer: statusAnswerSchema,
      handle: () => {
        const stats = bot.stats()
        const unavailable = new Set(connections.unavailableChains())
        return {
          answer: {
            mode: config.mode,
            venue: venueUrl === undefined ? 'sandbox' : withoutUrlSecrets(venueUrl),
            account,
            chains: [...chains.keys()].map((chainId) => ({ chainId, available: !unavailable.has(chainId) })),
            running: stats.running,
            uptimeMs: Date.now() - sources.startedAt,
            now: clock.now(),
            killSwitch: {
              tripped: killSwitch.isTripped(),
              reason: killSwitch.reason ?? null,
              source: killSwitch.source ?? null,
              cancelOpenOrders: killSwitch.cancelOpenOrders,
            },
            reconciliation: {
              lastAt: stats.lastReconcileAt,
              passes: stats.reconcilePasses,
              errors: stats.reconcileErrors,
              skips: stats.reconcileSkips,
            },
            journal: journalCountsOf(journal),
            stats,
          },
        }
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/strategies',
      summary: 'Each strategy: config, state (paused and why), errors, intents, orders, open orders and token flows',
      action: false,
      answer: strategiesAnswerSchema,
      handle: async () => {
        const summary = new Map(summarizeJournal(journal, { recentFills: 0 }).strategies.map((entry) => [entry.name, entry]))
        const open = journal.openOrderCounts()
        const flows = journal.tokenFlows()
        const [chosen] = await Promise.all([valuation.token(), labels.read(flows)])
        const pnlOf = (name: string) => {
          if (!('token' in chosen)) return { pnl: null, pnlUnpriced: chosen.reason }
          const valued = valuation.value(
            flows
              .filter((flow) => flow.strategy === name)
              .map((flow) => ({ chainId: flow.chainId, token: flow.token, amount: flow.received + flow.refunded - flow.spent })),
            chosen.token,
          )
          if (valued.unpriced.length > 0) return { pnl: null, pnlUnpriced: valuation.unpricedReason(valued, chosen.token) }
          const { chainId, token } = chosen.token
          return {
            pnl: {
              value: tokens.unitsOf(chainId, token, valued.raw),
              raw: valued.raw.toString(),
              token: tokens.labelOf(chainId, token),
              pricedAt: valued.pricedAt,
            },
            pnlUnpriced: null,
          }
        }
        return {
          answer: {
            strategies: strategies.map((strategy) => {
              const stats = strategy.stats()
              return {
                name: strategy.name,
                config: wireCopy(strategy.config),
                state: stats.paused ? ('paused' as const) : ('running' as const),
                pausedBy: stats.pausedBy,
                errors: {
                  failures: stats.failures,
                  consecutiveFailures: stats.consecutiveFailures,
                  lastError: stats.lastError ? withoutUrlSecrets(stats.lastError.shortMessage) : null,
                },
                events: { handled: stats.eventsHandled, skipped: stats.eventsSkipped },
                intentsProduced: stats.intentsProduced,
                intents: summary.get(strategy.name)?.intents ?? {},
                orders: summary.get(strategy.name)?.orders ?? {},
                openOrders: open[strategy.name] ?? 0,
                flows: flows
                  .filter((flow) => flow.strategy === strategy.name)
                  .map(({ chainId, token, spent, received, refunded }) => ({
                    chainId,
                    token,
                    spent: spent.toString(),
                    received: received.toString(),
                    refunded: refunded.toString(),
                    net: (received + refunded - spent).toString(),
                    label: tokens.labelOf(chainId, token),
                    netUnits: tokens.unitsOf(chainId, token, received + refunded - spent),
                  })),
                ...pnlOf(strategy.name),
              }
            }),
          },
        }
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/orders',
      summary: 'Orders, newest first, by strategy, status, mode, chain and open or not',
      action: false,
      query: z.object({
        ...pageQueryShape,
        strategy: z.string().min(1).optional(),
        status: orderStatusSchema.optional(),
        mode: z.enum(orderModes).optional(),
        chain: chainQuery,
        open: booleanQuery.optional(),
      }),
      answer: ordersAnswerSchema,
      handle: async ({ query }) => {
        const rows = journal.orderPage({ ...query, chainId: query.chain, before: position(query.cursor) })
        await labels.read(rows.flatMap(tokensOfOrder))
        return {
          answer: { orders: rows.map((row) => orderViewOf(row, row.strategy, tokens)), nextCursor: nextCursorOf(rows, query.limit) },
        }
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/orders/:id',
      summary: 'One order (by local id, intent id, venue id or hash) with its status history, fills and refunds',
      action: false,
      params: z.object({ id: z.string().min(1).max(200) }),
      answer: orderAnswerSchema,
      refusals: [404],
      handle: async ({ params }) => {
        const [order] = findOrders(journal, params.id)
        if (!order) throw new ConsoleRefusal(404, { error: `no order in the journal has the id, venue id or hash ${params.id}` })
        const strategy = journal.getIntent(order.intentId)?.strategy ?? null
        const refunds = journal.refundsOf(order.id)
        await labels.read([...tokensOfOrder(order), ...refunds.map((refund) => ({ chainId: refund.chainId, token: refund.token }))])
        return {
          answer: {
            order: orderViewOf(order, strategy, tokens),
            history: journal.orderHistory(order.id).map(({ status, reason, at }) => ({ status, reason, at })),
            fills: journal.fillsOf(order.id).map((fill) => fillViewOf(fill, strategy, tokens, order)),
            refunds: refunds.map((refund) => refundViewOf(refund, strategy, tokens)),
          },
        }
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/fills',
      summary: 'Fills, newest first, by strategy, order and chain',
      action: false,
      query: flowQuery,
      answer: fillsAnswerSchema,
      handle: async ({ query }) => {
        const rows = journal.fillPage({ ...query, chainId: query.chain, before: position(query.cursor) })
        const orders = await ordersOfFills(rows)
        return {
          answer: {
            fills: rows.map((row) => fillViewOf(row, row.strategy, tokens, orders.get(row.orderId))),
            nextCursor: nextCursorOf(rows, query.limit),
          },
        }
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/refunds',
      summary: 'Refunds of crosschain orders, newest first, by strategy, order and chain',
      action: false,
      query: flowQuery,
      answer: refundsAnswerSchema,
      handle: async ({ query }) => {
        const rows = journal.refundPage({ ...query, chainId: query.chain, before: position(query.cursor) })
        await labels.read(rows.map((row) => ({ chainId: row.chainId, token: row.token })))
        return {
          answer: {
            refunds: rows.map((row) => ({ id: row.id, ...refundViewOf(row, row.strategy, tokens) })),
            nextCursor: nextCursorOf(rows, query.limit),
          },
        }
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/balances',
      summary: 'The wallet’s balances per chain and token (read at most once per 5 s)',
      action: false,
      answer: balancesAnswerSchema,
      handle: async () => ({ answer: await sources.balances.balances() }),
    }),
    defineRoute({
      method: 'GET',
      path: '/api/equity',
      summary:
        'The wallet’s value in the valuation token over time (sampled on the bot’s clock), and the cumulative net token flows of the fills and refunds',
      action: false,
      query: equityQuerySchema,
      answer: equityAnswerSchema,
      handle: async ({ query }) => {
        const flows = netFlowsOf(journal.flows(), query.strategy, query.points)
        const [chosen] = await Promise.all([valuation.token(), labels.read(flows)])
        const token = 'token' in chosen ? chosen.token : undefined
        const named = (priced: { chainId: number; token: string }) => tokens.labelOf(priced.chainId, priced.token).name
        return {
          answer: {
            strategy: query.strategy ?? null,
            value: {
              token: token ? tokens.labelOf(token.chainId, token.token) : null,
              reason: 'reason' in chosen ? chosen.reason : null,
              intervalMs: sources.equity.intervalMs,
              points: token
                ? sources.equity
                    .points()
                    .slice(-query.points)
                    .map(({ at, raw, pricedAt, unpriced }) => ({
                      at,
                      value: tokens.unitsOf(token.chainId, token.token, raw),
                      raw: raw.toString(),
                      pricedAt,
                      unpriced: unpriced.map(named),
                    }))
                : [],
            },
            flows: flows.map(({ chainId, token: address, points }) => ({
              chainId,
              token: address,
              label: tokens.labelOf(chainId, address),
              points: points.map(({ at, net }) => ({ at, net: net.toString(), netUnits: tokens.unitsOf(chainId, address, net) })),
            })),
          },
        }
      },
    }),
  ]
}

/** Orders by `mode:status` (open: not final), fills and refunds, as `deltaflow status` counts them. */
function journalCountsOf(journal: ConsoleSources['journal']) {
  const byStatus: Record<string, number> = {}
  let open = 0
  let total = 0
  for (const row of journal.orderCounts()) {
    const key = `${row.mode}:${row.status}`
    byStatus[key] = (byStatus[key] ?? 0) + row.count
    total += row.count
    if (!isFinalStatus(row.mode as OrderMode, row.status)) open += row.count
  }
  return { orders: { byStatus, open, total }, fills: journal.fillCount(), refunds: journal.refundCount() }
}

/** A strategy's config for the wire: bigint as decimal strings, URLs without their credentials. */
function wireCopy(value: unknown): unknown {
  if (typeof value === 'bigint') return value.toString()
  if (typeof value === 'string') return withoutUrlSecrets(value)
  if (Array.isArray(value)) return value.map(wireCopy)
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, wireCopy(inner)]))
  }
  return value
}
