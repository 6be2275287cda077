import type { Command } from 'commander'
import { orderStatusSchema } from '../domain/order-status.js'
import { BaseError } from '../errors/base.js'
import type { Journal } from '../journal/journal.js'
import type { JournalOrder } from '../journal/orders.js'
import { reportCommandError } from './command-errors.js'
import { descriptionOf } from './command-summaries.js'
import { openExistingJournal } from './journal-file.js'
import { addJournalOptions, type JournalOptions } from './journal-options.js'
import { toJsonValue } from './json-output.js'

type OrdersOptions = JournalOptions & { status: string[]; strategy: string[]; open?: boolean; limit?: number }

export function registerOrdersCommand(program: Command): void {
  addJournalOptions(
    program
      .command('orders')
      .description(descriptionOf('orders'))
      .option('--status <status>', 'only orders in this status (repeatable), e.g. PENDING, COMPLETED, mined', collect, [])
      .option('--strategy <name>', 'only orders of this strategy (repeatable)', collect, [])
      .option('--open', 'only orders not in a final status'),
  ).action(async (options: OrdersOptions) => {
    try {
      const journal = await openExistingJournal(options)
      try {
        for (const status of options.status) checkStatus(status)
        const orders = selectOrders(journal, options)
        if (options.json) process.stdout.write(`${JSON.stringify(toJsonValue({ orders }))}\n`)
        else process.stdout.write(formatOrders(orders))
      } finally {
        journal.close()
      }
    } catch (error) {
      reportCommandError(error, options.json)
    }
  })
}

function selectOrders(journal: Journal, { status, strategy, open }: OrdersOptions): JournalOrder[] {
  const base = strategy.length === 0 ? journal.listOrders() : strategy.flatMap((name) => journal.listOrders({ strategy: name }))
  const openIds = open ? new Set(journal.openOrders().map((order) => order.id)) : undefined
  const statuses = new Set<string>(status)
  return base
    .filter((order) => (statuses.size === 0 || statuses.has(order.status)) && (openIds === undefined || openIds.has(order.id)))
    .sort((left, right) => left.createdAt - right.createdAt || left.id.localeCompare(right.id))
}

function formatOrders(orders: readonly JournalOrder[]): string {
  if (orders.length === 0) return 'no orders\n'
  const rows = orders.map((order) => [
    order.id,
    order.mode,
    order.chainId === order.destChainId ? String(order.chainId) : `${order.chainId}→${order.destChainId}`,
    order.status,
    order.side,
    `${order.srcAmount} ${short(order.srcToken)}`,
    `${order.destAmount} ${short(order.destToken)}`,
    order.venueId ?? (order.submitted ? '' : 'not submitted'),
  ])
  const header = ['ID', 'MODE', 'CHAIN', 'STATUS', 'SIDE', 'SRC (max)', 'DEST (min)', 'VENUE ID']
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)))
  const line = (cells: readonly string[]) =>
    `${cells
      .map((cell, column) => cell.padEnd(widths[column] ?? 0))
      .join('  ')
      .trimEnd()}\n`
  return line(header) + rows.map(line).join('')
}

function short(address: string): string {
  return `${address.slice(0, 6)}…${address.slice(-4)}`
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value]
}

function checkStatus(status: string): void {
  if (!orderStatusSchema.safeParse(status).success) {
    throw new BaseError(`--status expects an order status (${orderStatusSchema.options.join(', ')}), received "${status}"`, {
      errorClass: 'operational',
    })
  }
}
