import type { z } from 'zod'
import type { EquityAnswer } from '../runtime/console/equity-answer.js'
import type { fillViewSchema, orderViewSchema } from '../runtime/console/order-answers.js'
import type { StrategyView } from '../runtime/console/strategy-answer.js'
import { timeChart } from './charts.js'
import { element, formatTime, formatUnitsText, link, shortHex, table, tokenAmount } from './dom.js'
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
        element('td', { class: 'number' }, tokenAmount(order.srcAmountUnits, order.srcAmount, order.srcLabel)),
        element('td', { class: 'number' }, tokenAmount(order.destAmountUnits, order.destAmount, order.destLabel)),
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
        element('td', { class: 'number' }, tokenAmount(fill.spentUnits, fill.spent, fill.spentLabel)),
        element('td', { class: 'number' }, tokenAmount(fill.receivedUnits, fill.received, fill.receivedLabel)),
        element('td', {}, shortHex(fill.txHash)),
        element('td', {}, fill.source),
      ),
    ),
    empty,
  )
}

/** The wallet's value in the valuation token over time; or why there is none. */
export function valueChart(equity: EquityAnswer, now: number): HTMLElement {
  const { token, reason, points } = equity.value
  if (token === null) return element('p', { class: 'empty' }, reason ?? 'No valuation token.')
  const unit = token.symbol ?? `raw units of ${token.name}`
  const last = points.at(-1)
  // Points on the latest one's basis only: a point taken before a token had a price leaves it out, and would jump.
  const basis = (point: { unpriced: readonly string[] }) => point.unpriced.join(',')
  const values = points
    .filter((point) => basis(point) === basis(last ?? point))
    .map((point) => ({ at: point.at, value: Number(point.value ?? point.raw) }))
  const note =
    last && last.unpriced.length > 0
      ? `${unit}; without ${last.unpriced.join(', ')} (no price seen yet)`
      : `${unit}, the wallet’s balances at the latest prices the bot has seen`
  return element(
    'div',
    { class: 'charts wide' },
    timeChart({
      title: `Wallet value${last?.value ? `: ${formatUnitsText(last.value)} ${token.symbol ?? ''}` : ''}`,
      note,
      height: 220,
      series: [
        {
          label: `value (${token.name})`,
          color: palette[0] ?? '#2563eb',
          points:
            values.length > 0 && (values.at(-1)?.at ?? now) < now ? [...values, { at: now, value: values.at(-1)?.value ?? 0 }] : values,
        },
      ],
    }),
  )
}

/** One chart per chain and token: the cumulative net flow in token units (raw units when unknown), held until `now`. */
export function flowCharts(equity: EquityAnswer, now: number): HTMLElement {
  if (equity.flows.length === 0) return element('p', { class: 'empty' }, 'No fills or refunds yet.')
  return element(
    'div',
    { class: 'charts' },
    ...equity.flows.map((line, index) => {
      const inUnits = line.label.symbol !== null
      const points = line.points.map((point) => ({ at: point.at, value: Number(inUnits ? (point.netUnits ?? point.net) : point.net) }))
      return timeChart({
        title: `Net ${line.label.name} on chain ${line.chainId}`,
        note: inUnits ? line.label.name : 'raw units (symbol unknown)',
        height: 180,
        series: [
          {
            label: 'net',
            color: palette[index % palette.length] ?? '#2563eb',
            stepped: true,
            points:
              points.length > 0 && (points.at(-1)?.at ?? now) < now ? [...points, { at: now, value: points.at(-1)?.value ?? 0 }] : points,
          },
        ],
      })
    }),
  )
}

/** Net flows of a strategy: each token it moved, in its units. */
export function flowsList(strategy: StrategyView): Node {
  if (strategy.flows.length === 0) return document.createTextNode('—')
  return element(
    'ul',
    { class: 'flows' },
    ...strategy.flows.map((flow) =>
      element('li', { class: flow.net.startsWith('-') ? 'negative' : 'positive' }, tokenAmount(flow.netUnits, flow.net, flow.label, true)),
    ),
  )
}

/** A strategy's PnL in the valuation token, or a dash with the reason in its title. */
export function pnlCell(strategy: StrategyView): HTMLElement {
  const { pnl } = strategy
  if (pnl === null) return element('span', { class: 'unpriced', title: strategy.pnlUnpriced ?? '' }, '—')
  const tone = pnl.raw.startsWith('-') ? 'negative' : pnl.raw === '0' ? '' : 'positive'
  return element('span', { class: `pnl ${tone}`, 'data-pnl': pnl.raw }, tokenAmount(pnl.value, pnl.raw, { ...pnl.token }, true))
}
