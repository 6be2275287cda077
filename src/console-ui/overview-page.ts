import { equityAnswerSchema } from '../runtime/console/equity-answer.js'
import { fillsAnswerSchema, ordersAnswerSchema } from '../runtime/console/order-answers.js'
import type { StatusAnswer } from '../runtime/console/status-answer.js'
import { strategiesAnswerSchema } from '../runtime/console/strategy-answer.js'
import { readApi } from './api-client.js'
import { element, facts, formatTime, table } from './dom.js'
import { describeEvent, type LiveEvents } from './live-events.js'
import {
  fillsTable,
  flowsList,
  ordersTable,
  type PageContext,
  pauseButton,
  pnlCell,
  section,
  stateBadge,
  strategyLink,
  valueChart,
} from './page-parts.js'

/** The bot at a glance: strategies, open orders, latest fills, equity and the live feed. */
export async function renderOverview(context: PageContext & { status: StatusAnswer; live: LiveEvents }): Promise<HTMLElement> {
  const [{ strategies }, open, fills, equity] = await Promise.all([
    readApi('/api/strategies', strategiesAnswerSchema),
    readApi('/api/orders?open=true&limit=20', ordersAnswerSchema),
    readApi('/api/fills?limit=10', fillsAnswerSchema),
    readApi('/api/equity?points=500', equityAnswerSchema),
  ])
  const { status } = context
  const pnlUnit = strategies.find((strategy) => strategy.pnl)?.pnl?.token.name ?? equity.value.token?.name
  const details: [string, string | Node][] = [
    ['Mode', status.mode],
    ['Venue', status.venue],
    ['Chains', status.chains.map((chain) => `${chain.chainId}${chain.available ? '' : ' (unavailable)'}`).join(', ')],
    ['Orders', `${status.journal.orders.open} open of ${status.journal.orders.total}`],
    ['Fills', String(status.journal.fills)],
    ['Last reconciliation', formatTime(status.reconciliation.lastAt)],
  ]
  return element(
    'div',
    { class: 'page overview' },
    facts(details),
    section(
      'Strategies',
      table(
        ['Strategy', 'State', 'Open orders', 'Failures', 'Net flows', `PnL${pnlUnit ? ` (${pnlUnit})` : ''}`, ''],
        strategies.map((strategy) =>
          element(
            'tr',
            { 'data-strategy': strategy.name, 'data-state': strategy.state },
            element('td', {}, strategyLink(strategy.name)),
            element('td', {}, stateBadge(strategy.state, strategy.pausedBy ? `paused by ${strategy.pausedBy}` : undefined)),
            element('td', { class: 'number' }, strategy.openOrders),
            element('td', { class: 'number', title: strategy.errors.lastError ?? '' }, strategy.errors.failures),
            element('td', {}, flowsList(strategy)),
            element('td', { class: 'number' }, pnlCell(strategy)),
            element('td', { class: 'actions' }, pauseButton(strategy, context)),
          ),
        ),
        'The bot runs no strategy.',
      ),
    ),
    element(
      'div',
      { class: 'columns' },
      element(
        'div',
        {},
        section('Open orders', ordersTable(open.orders, 'No open orders.')),
        section('Latest fills', fillsTable(fills.fills, 'No fills yet.')),
      ),
      section(
        'Live events',
        context.live.recent().length === 0
          ? element('p', { class: 'empty', id: 'live-feed' }, 'Waiting for events…')
          : element(
              'ol',
              { class: 'feed', id: 'live-feed' },
              ...context.live
                .recent()
                .slice(0, 15)
                .map((event) =>
                  element(
                    'li',
                    { 'data-kind': event.kind, 'data-event-id': String(event.id) },
                    element('time', {}, formatTime(event.at).slice(11)),
                    ' ',
                    describeEvent(event, fills.fills),
                  ),
                ),
            ),
      ),
    ),
    section('Equity', valueChart(equity, context.now)),
  )
}
