import { orderAnswerSchema } from '../runtime/console/order-answers.js'
import { readApi } from './api-client.js'
import { element, facts, formatTime, shortHex, table, tokenAmount } from './dom.js'
import { runOperatorAction } from './operator-actions.js'
import { fillsTable, type PageContext, section, stateBadge, strategyLink } from './page-parts.js'

/** One order: what it is, its status history, fills and refunds, and a cancel button while it is open. */
export async function renderOrder(id: string, context: PageContext): Promise<HTMLElement> {
  const { order, history, fills, refunds } = await readApi(`/api/orders/${encodeURIComponent(id)}`, orderAnswerSchema)
  const details: [string, Node | string][] = [
    ['Strategy', strategyLink(order.strategy)],
    ['Mode', order.mode],
    ['Side', order.side],
    ['Chains', order.chainId === order.destChainId ? String(order.chainId) : `${order.chainId} → ${order.destChainId}`],
    ['Sells', tokenAmount(order.srcAmountUnits, order.srcAmount, order.srcLabel)],
    ['Buys', tokenAmount(order.destAmountUnits, order.destAmount, order.destLabel)],
    ['Venue id', order.venueId ?? '—'],
    ['Order hash', order.orderHash ? shortHex(order.orderHash) : '—'],
    ['Deadline', order.deadline === null ? '—' : formatTime(order.deadline * 1000)],
    ['Created', formatTime(order.createdAt)],
    ['Updated', formatTime(order.updatedAt)],
  ]
  const cancel = order.open
    ? element(
        'button',
        {
          class: 'danger',
          'data-action': 'cancel-order',
          onclick: () =>
            void runOperatorAction({
              path: `/api/orders/${encodeURIComponent(order.id)}/cancel`,
              title: 'Cancel this order?',
              message: `Order ${order.id} is cancelled through the executor.`,
              confirmLabel: 'Cancel order',
              danger: true,
              done: `order ${order.id} cancelled`,
              after: context.refresh,
            }),
        },
        'Cancel order',
      )
    : null
  return element(
    'div',
    { class: 'page order', 'data-order': order.id },
    element('header', { class: 'page-head' }, element('h1', {}, 'Order ', shortHex(order.id), ' ', stateBadge(order.status)), cancel),
    facts(details),
    section(
      'Status history',
      table(
        ['At', 'Status', 'Reason'],
        history.map((entry) =>
          element(
            'tr',
            {},
            element('td', {}, formatTime(entry.at)),
            element('td', {}, stateBadge(entry.status)),
            element('td', {}, entry.reason ?? ''),
          ),
        ),
        'No status change recorded.',
      ),
    ),
    section('Fills', fillsTable(fills, 'No fills.')),
    section(
      'Refunds',
      table(
        ['Recorded', 'Chain', 'Token', 'Amount', 'Tx'],
        refunds.map((refund) =>
          element(
            'tr',
            {},
            element('td', {}, formatTime(refund.recordedAt)),
            element('td', {}, refund.chainId),
            element('td', {}, refund.label.name),
            element('td', { class: 'number' }, tokenAmount(refund.amountUnits, refund.amount, refund.label)),
            element('td', {}, shortHex(refund.txHash)),
          ),
        ),
        'No refunds.',
      ),
    ),
  )
}
