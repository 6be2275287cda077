import { type Command, InvalidArgumentError } from 'commander'
import { orderStatusSchema } from '../domain/order-status.js'
import type { Journal } from '../journal/journal.js'
import type { JournalOrder } from '../journal/orders.js'
import { reportCommandError } from './command-errors.js'
import { descriptionOf } from './command-summaries.js'
import { labelChainsOf, openExistingJournal } from './journal-file.js'
import { addJournalOptions, type JournalOptions } from './journal-options.js'
import { toJsonValue } from './json-output.js'
import { formatTokenAmount, labelOf, labelTokens, type TokenLabels, tokenKey } from './token-labels.js'

type OrdersOptions = JournalOptions & { status: string[]; strategy: string[]; open?: boolean; limit?: number }

export function registerOrdersCommand(program: Command): void {
  addJournalOptions(
    program
      .command('orders')
      .description(descriptionOf('orders'))
      .option('--status <status>', 'only orders in this status (repeatable), e.g. PENDING, COMPLETED, mined', collectStatus, [])
      .option('--strategy <name>', 'only orders of this strategy (repeatable)', collect, [])
      .option('--open', 'only orders not in a final status'),
  ).action(async (options: OrdersOptions) => {
    try {
      const journal = await openExistingJournal(options)
      try {
        const orders = selectOrders(journal, options)
        const keys = orders.flatMap((order) => [tokenKey(order.chainId, order.srcToken), tokenKey(order.destChainId, order.destToken)])
        const labels = await labelTokens(keys, await labelChainsOf(options))
        if (options.json)
          process.stdout.write(`${JSON.stringify(toJsonValue({ orders: orders.map((order) => withUnits(order, labels)) }))}\n`)
        else process.stdout.write(formatOrders(orders, labels))
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

/**
 * An order for --json: the journal's row (raw integer amounts) with `src` and `dest` in token units, for the tokens
 * whose symbol and decimals are known.
 */
function withUnits(order: JournalOrder, labels: TokenLabels) {
  const units = (chainId: number, token: string, amount: bigint) => {
    const label = labelOf(labels, tokenKey(chainId, token))
    return label && { symbol: label.symbol, decimals: label.decimals, amount: label.format(amount) }
  }
  const src = units(order.chainId, order.srcToken, order.srcAmount)
  const dest = units(order.destChainId, order.destToken, order.destAmount)
  return { ...order, ...(src ? { src } : {}), ...(dest ? { dest } : {}) }
}

function formatOrders(orders: readonly JournalOrder[], labels: TokenLabels): string {
  if (orders.length === 0) return 'no orders\n'
  const rows = orders.map((order) => [
    order.id,
    order.mode,
    order.chainId === order.destChainId ? String(order.chainId) : `${order.chainId}→${order.destChainId}`,
    order.status,
    order.side,
    amountOf(labels, order.chainId, order.srcToken, order.srcAmount),
    amountOf(labels, order.destChainId, order.destToken, order.destAmount),
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

/** `1.5 WETH`, or the raw amount and a short address for a token without a label. */
function amountOf(labels: TokenLabels, chainId: number, token: string, amount: bigint): string {
  const key = tokenKey(chainId, token)
  return labelOf(labels, key) ? formatTokenAmount(labels, key, amount) : `${amount} raw ${token.slice(0, 6)}…${token.slice(-4)}`
}

function collectStatus(value: string, previous: string[]): string[] {
  if (!orderStatusSchema.safeParse(value).success) {
    throw new InvalidArgumentError(`--status expects an order status (${orderStatusSchema.options.join(', ')}), received "${value}"`)
  }
  return [...previous, value]
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value]
}
