import type { z } from 'zod'
import type { EquityAnswer } from '../runtime/console/equity-answer.js'
import type { fillViewSchema, orderViewSchema } from '../runtime/console/order-answers.js'
import type { StrategyView } from '../runtime/console/strategy-answer.js'
import { timeChart } from './charts.js'
import { amount, element, formatTime, link, shortHex, table } from './dom.js'
import { runOperatorAction } from './operator-actions.js'

type OrderView = z.infer<typeof orderViewSchema>
type FillView = z.infer<typeof fillViewSchema>

/** What every page gets: a way to ask for its own refresh (after an action), and the bot's clock (ms). */
export type PageContext = { refresh: () => void; now: number }

export const palette = ['#2563eb', '#16a34a', '#d97706', '#9333ea', '#dc2626', '#0891b2']

export function section(title: string, ...content: (Node | null)[]): HTMLElement {
  return element('section', {}, element('h2', {}, title), ...content)
}

const tones: Record<string, 'good' | 'bad' | 'warn'> = {
  running: 'good',
  completed: 'good',
  fulfilled: 'good',
  mined: 'good',
  paused: 'warn',
  suspended: 'warn',
  failed: 'bad',
  cancelled: 'bad',
  expired: 'bad',
  reverted: 'bad',
  dropped: 'bad',
}

/** A strategy state or an order status, coloured by what it means (done, open, needs a look, ended badly). */
export function stateBadge(state: string, title?: string): HTMLElement {
  const tone = tones[state.toLowerCase()] ?? (/refund|cancel|fail/i.test(state) ? 'bad' : 'open')
  return element('span', { class: `badge ${tone}`, title }, state)
}

export function orderLink(id: string): HTMLAnchorElement {
  return link(`#/orders/${encodeURIComponent(id)}`, shortHex(id))
}

export function strategyLink(name: string | null): Node {
  return name === null ? document.createTextNode('—') : link(`#/strategies/${encodeURIComponent(name)}`, name)
}

/** Pause or resume, with a confirmation. */
export function pauseButton(strategy: StrategyView, context: PageContext): HTMLButtonElement {
  const paused = strategy.state === 'paused'
  const verb = paused ? 'Resume' : 'Pause'
  return element(
    'button',
    {
      class: paused ? 'primary' : 'secondary',
      'data-action': paused ? 'resume' : 'pause',
      'data-strategy': strategy.name,
      onclick: () =>
        void runOperatorAction({
          path: `/api/strategies/${encodeURIComponent(strategy.name)}/${paused ? 'resume' : 'pause'}`,
          title: `${verb} ${strategy.name}?`,
          message: paused
            ? `${strategy.name} gets events again and may place orders.`
            : `${strategy.name} gets no more events until resumed; its open orders stay open.`,
          confirmLabel: verb,
          done: `${strategy.name} ${paused ? 'resumed' : 'paused'}`,
          after: context.refresh,
        }),
    },
    verb,
  )
}

export function ordersTable(orders: readonly OrderView[], empty: string): HTMLElement {
  return table(
    ['Order', 'Strategy', 'Side', 'Status', 'Sells', 'Buys', 'Created'],
    orders.map((order) =>
      element(
        'tr',
        { 'data-order': order.id },
        element('td', {}, orderLink(order.id)),
        element('td', {}, strategyLink(order.strategy)),
        element('td', {}, order.side),
        element('td', {}, stateBadge(order.status)),
        element('td', { class: 'number' }, amount(order.srcAmount), ' ', shortHex(order.srcToken)),
        element('td', { class: 'number' }, amount(order.destAmount), ' ', shortHex(order.destToken)),
        element('td', { title: order.mode }, formatTime(order.createdAt).slice(5)),
      ),
    ),
    empty,
  )
}

export function fillsTable(fills: readonly FillView[], empty: string): HTMLElement {
  return table(
    ['Recorded', 'Order', 'Strategy', 'Chain', 'Spent', 'Received', 'Tx', 'Seen by'],
    fills.map((fill) =>
      element(
        'tr',
        { 'data-fill': fill.id },
        element('td', {}, formatTime(fill.recordedAt).slice(5)),
        element('td', {}, orderLink(fill.orderId)),
        element('td', {}, strategyLink(fill.strategy)),
        element('td', {}, fill.chainId),
        element('td', { class: 'number' }, amount(fill.spent)),
        element('td', { class: 'number' }, amount(fill.received)),
        element('td', {}, shortHex(fill.txHash)),
        element('td', {}, fill.source),
      ),
    ),
    empty,
  )
}

/** One chart per chain and token: the cumulative net flow in raw units, held until `now`. */
export function equityCharts(equity: EquityAnswer, now: number): HTMLElement {
  if (equity.series.length === 0) return element('p', { class: 'empty' }, 'No fills or refunds yet.')
  return element(
    'div',
    { class: 'charts' },
    ...equity.series.map((line, index) =>
      timeChart({
        title: `Net ${line.token.slice(0, 6)}…${line.token.slice(-4)} on chain ${line.chainId}`,
        note: 'raw units',
        height: 180,
        series: [
          {
            label: 'net',
            color: palette[index % palette.length] ?? '#2563eb',
            stepped: true,
            points: [
              ...line.points,
              ...(line.points.length > 0 && (line.points.at(-1)?.at ?? now) < now
                ? [{ at: now, net: line.points.at(-1)?.net ?? '0' }]
                : []),
            ].map((point) => ({ at: point.at, value: Number(point.net) })),
          },
        ],
      }),
    ),
  )
}

/** Net flows of a strategy: each token it moved. */
export function flowsList(strategy: StrategyView): Node {
  if (strategy.flows.length === 0) return document.createTextNode('—')
  return element(
    'ul',
    { class: 'flows' },
    ...strategy.flows.map((flow) =>
      element('li', { class: flow.net.startsWith('-') ? 'negative' : 'positive' }, amount(flow.net), ' ', shortHex(flow.token)),
    ),
  )
}
