import type { Command } from 'commander'
import { BaseError } from '../errors/base.js'
import { findOrders } from '../journal/find-orders.js'
import type { Journal } from '../journal/journal.js'
import { reportCommandError } from './command-errors.js'
import { descriptionOf } from './command-summaries.js'
import { openExistingJournal } from './journal-file.js'
import { addJournalOptions, type JournalOptions } from './journal-options.js'
import { toJsonValue } from './json-output.js'

export class OrderNotInJournalError extends BaseError {
  override name = 'OrderNotInJournalError'
}

export function registerOrderCommand(program: Command): void {
  addJournalOptions(
    program
      .command('order')
      .description(descriptionOf('order'))
      .argument('<id>', 'local order id, intent id, venue order id or order hash'),
  ).action(async (id: string, options: JournalOptions) => {
    try {
      const journal = await openExistingJournal(options)
      try {
        const report = orderReport(journal, id)
        if (options.json) process.stdout.write(`${JSON.stringify(toJsonValue(report))}\n`)
        else process.stdout.write(formatReport(report))
      } finally {
        journal.close()
      }
    } catch (error) {
      reportCommandError(error, options.json)
    }
  })
}

export type OrderReport = ReturnType<typeof orderReport>

/** Everything the journal knows about one order. */
export function orderReport(journal: Journal, id: string) {
  const [order] = findOrders(journal, id)
  if (!order) {
    throw new OrderNotInJournalError(`No order ${id} in the journal`, {
      hint: 'Give a local order id, an intent id, a venue order id or an order hash (see `deltaflow orders`).',
      errorClass: 'operational',
    })
  }
  const intent = journal.getIntent(order.intentId)
  return {
    order,
    intent: intent && { id: intent.id, strategy: intent.strategy, kind: intent.kind, status: intent.status, reason: intent.refusalReason },
    modeChoice: journal.getModeChoice(order.intentId),
    history: journal.orderHistory(order.id),
    fills: journal.fillsOf(order.id),
    refunds: journal.refundsOf(order.id),
    transactions: journal.transactionsOf(order.id),
  }
}

function formatReport(report: OrderReport): string {
  const { order } = report
  const lines = [
    `order     ${order.id} (${order.mode}, ${order.side})`,
    `status    ${order.status}${order.submitted ? '' : ' (not submitted)'}`,
    `venue id  ${order.venueId ?? '-'}`,
    `hash      ${order.orderHash ?? '-'}`,
    `chain     ${order.chainId}${order.destChainId === order.chainId ? '' : ` → ${order.destChainId}`}`,
    `account   ${order.account}${order.beneficiary === order.account ? '' : ` (beneficiary ${order.beneficiary})`}`,
    `src       ${order.srcAmount} of ${order.srcToken} (at most)`,
    `dest      ${order.destAmount} of ${order.destToken} (at least)`,
    `intent    ${report.intent ? `${report.intent.id} of ${report.intent.strategy}: ${report.intent.status}` : '-'}`,
  ]
  if (report.modeChoice)
    lines.push(`mode      ${report.modeChoice.mode ?? 'none'} (${report.modeChoice.reason}): ${report.modeChoice.explanation}`)
  lines.push('history')
  for (const change of report.history)
    lines.push(`  ${new Date(change.at).toISOString()}  ${change.status}${change.reason ? `  ${change.reason}` : ''}`)
  lines.push(report.fills.length === 0 ? 'fills     none' : 'fills')
  for (const fill of report.fills) {
    lines.push(`  ${fill.txHash}  spent ${fill.spentAmount}  received ${fill.receivedAmount}  (${fill.source})`)
  }
  if (report.refunds.length > 0) lines.push('refunds')
  for (const refund of report.refunds) lines.push(`  ${refund.txHash}  ${refund.amount} of ${refund.token} on ${refund.chainId}`)
  if (report.transactions.length > 0) lines.push('transactions')
  for (const transaction of report.transactions) {
    lines.push(
      `  ${transaction.txHash}  ${transaction.purpose}  ${transaction.status}${transaction.revertReason ? `: ${transaction.revertReason}` : ''}`,
    )
  }
  return `${lines.join('\n')}\n`
}
