import { equityAnswerSchema } from '../runtime/console/equity-answer.js'
import { fillsAnswerSchema, ordersAnswerSchema } from '../runtime/console/order-answers.js'
import { strategiesAnswerSchema } from '../runtime/console/strategy-answer.js'
import { readApi } from './api-client.js'
import { ratioOf, timeChart } from './charts.js'
import { element, facts } from './dom.js'
import { runOperatorAction } from './operator-actions.js'
import {
  fillsTable,
  flowCharts,
  flowsList,
  ordersTable,
  type PageContext,
  palette,
  pauseButton,
  pnlCell,
  section,
  stateBadge,
} from './page-parts.js'

/** One strategy: state and actions, its prices with fills marked, its orders, fills and equity. */
export async function renderStrategy(name: string, context: PageContext): Promise<HTMLElement> {
  const query = `strategy=${encodeURIComponent(name)}`
  const [{ strategies }, orders, fills, equity] = await Promise.all([
    readApi('/api/strategies', strategiesAnswerSchema),
    readApi(`/api/orders?${query}&limit=100`, ordersAnswerSchema),
    readApi(`/api/fills?${query}&limit=100`, fillsAnswerSchema),
    readApi(`/api/equity?${query}&points=500`, equityAnswerSchema),
  ])
  const strategy = strategies.find((candidate) => candidate.name === name)
  if (!strategy) return element('p', { class: 'empty' }, `The bot runs no strategy named ${name}.`)
  // The API has no market price series: the chart shows the limit price of each order and the price of each fill,
  // destination per source token in token units (raw units for a token whose decimals are unknown).
  const orderPrices = orders.orders
    .map((order) => ({
      at: order.createdAt,
      value: ratioOf(order.destAmountUnits ?? order.destAmount, order.srcAmountUnits ?? order.srcAmount),
    }))
    .filter((point): point is { at: number; value: number } => point.value !== undefined)
    .reverse()
  const fillPrices = fills.fills
    .map((fill) => ({ at: fill.recordedAt, value: ratioOf(fill.receivedUnits ?? fill.received, fill.spentUnits ?? fill.spent) }))
    .filter((point): point is { at: number; value: number } => point.value !== undefined)
    .reverse()
  const cancelAll = element(
    'button',
    {
      class: 'secondary',
      'data-action': 'cancel-orders',
      disabled: strategy.openOrders === 0,
      onclick: () =>
        void runOperatorAction({
          path: `/api/strategies/${encodeURIComponent(name)}/cancel-orders`,
          title: `Cancel every open order of ${name}?`,
          message: `${strategy.openOrders} open order(s) are cancelled through the executor. The strategy keeps running and may place new ones: pause it first to stop it.`,
          confirmLabel: 'Cancel orders',
          danger: true,
          done: `open orders of ${name} cancelled`,
          after: context.refresh,
        }),
    },
    'Cancel open orders',
  )
  return element(
    'div',
    { class: 'page strategy', 'data-strategy': name, 'data-state': strategy.state },
    element(
      'header',
      { class: 'page-head' },
      element('h1', {}, name, ' ', stateBadge(strategy.state, strategy.pausedBy ? `paused by ${strategy.pausedBy}` : undefined)),
      element('div', { class: 'actions' }, pauseButton(strategy, context), cancelAll),
    ),
    facts([
      ['Open orders', String(strategy.openOrders)],
      ['Intents', String(strategy.intentsProduced)],
      ['Events handled', String(strategy.events.handled)],
      ['Failures', `${strategy.errors.failures}${strategy.errors.lastError ? ` — ${strategy.errors.lastError}` : ''}`],
      ['Paused by', strategy.pausedBy ?? '—'],
      ['Net flows', flowsList(strategy)],
      ['PnL', element('span', {}, pnlCell(strategy), strategy.pnlUnpriced ? element('small', {}, ` ${strategy.pnlUnpriced}`) : null)],
    ]),
    section(
      'Prices',
      timeChart({
        title: 'Order limit prices and fills',
        note: 'destination per source token, in token units (the API has no market price series)',
        series: [
          { label: 'order limit', color: palette[0] ?? '#2563eb', points: orderPrices, pointsOnly: true },
          { label: 'fill', color: palette[4] ?? '#dc2626', points: fillPrices, pointsOnly: true, size: 12 },
        ],
      }),
    ),
    section('Orders', ordersTable(orders.orders, 'No orders yet.')),
    section('Fills', fillsTable(fills.fills, 'No fills yet.')),
    section('Net flows', flowCharts(equity, context.now)),
    element('details', {}, element('summary', {}, 'Config'), element('pre', {}, JSON.stringify(strategy.config, null, 2))),
  )
}
