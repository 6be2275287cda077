import type { Database, Statement } from 'better-sqlite3'
import type { OrderMode, OrderStatus } from '../domain/order-status.js'
import { fillRowSchema, type JournalFill } from './order-events.js'
import { type JournalOrder, orderRowSchema } from './orders.js'
import { type JournalRefund, refundRowSchema } from './refunds.js'

/** Newest first; `before` is the position (rowid) of the last row of the previous page. */
export type PageParameters = { limit: number; before?: number | undefined }

export type OrderPageParameters = PageParameters & {
  strategy?: string | undefined
  status?: OrderStatus | undefined
  mode?: OrderMode | undefined
  chainId?: number | undefined
  /** Only orders not final (true) or only final ones (false). */
  open?: boolean | undefined
}

export type Positioned<T> = T & { position: number; strategy: string | null }

export type FillPageParameters = PageParameters & {
  strategy?: string | undefined
  orderId?: string | undefined
  chainId?: number | undefined
}

/** One fill or refund moving a strategy's tokens, in journal order (the equity series sums them). */
export type FlowRow = {
  at: number
  strategy: string
  srcChain: number
  destChain: number
  srcToken: string
  destToken: string
  spent: string
  received: string
  refundToken: string | null
  refundAmount: string | null
}

/** Read-only pages of orders, fills and refunds for the console, with filters, newest first. */
export function createConsoleQueries(db: Database) {
  const statements = new Map<string, Statement>()
  const prepared = (sql: string): Statement => {
    let statement = statements.get(sql)
    if (!statement) {
      statement = db.prepare(sql)
      statements.set(sql, statement)
    }
    return statement
  }

  function page<T>(
    select: string,
    filters: [string, string | number | undefined][],
    { limit, before }: PageParameters,
    parse: (row: unknown) => T,
  ): Positioned<T>[] {
    const used = [...filters, ['position < ?', before] as [string, string | number | undefined]].filter(([, value]) => value !== undefined)
    const where = used.length > 0 ? `WHERE ${used.map(([condition]) => condition).join(' AND ')}` : ''
    const rows = prepared(`${select} ${where} ORDER BY position DESC LIMIT ?`).all(...used.map(([, value]) => value), limit) as {
      position: number
      strategy: string | null
    }[]
    return rows.map((row) => ({ ...parse(row), position: row.position, strategy: row.strategy }))
  }

  /** Fills or refunds with their order's strategy, by strategy, order and chain. */
  function flowPage<T>(
    table: 'fills' | 'refunds',
    { strategy, orderId, chainId, ...range }: FillPageParameters,
    parse: (row: unknown) => T,
  ): Positioned<T>[] {
    return page(
      `SELECT * FROM (SELECT ${table}.*, ${table}.id AS position, orders.strategy AS strategy FROM ${table}
         JOIN orders ON orders.id = ${table}.order_id)`,
      [
        ['strategy = ?', strategy],
        ['order_id = ?', orderId],
        ['chain_id = ?', chainId],
      ],
      range,
      parse,
    )
  }

  const selectFlows = db.prepare<[], FlowRow>(
    `SELECT at, strategy, srcChain, destChain, srcToken, destToken, spent, received, refundToken, refundAmount FROM (
       SELECT fills.recorded_at AS at, fills.id AS n, 0 AS refund, coalesce(orders.strategy, '') AS strategy,
         orders.chain_id AS srcChain, coalesce(fills.destination_chain_id, orders.dest_chain_id) AS destChain,
         orders.src_token AS srcToken, orders.dest_token AS destToken, fills.spent_amount AS spent,
         fills.received_amount AS received, NULL AS refundToken, NULL AS refundAmount
       FROM fills JOIN orders ON orders.id = fills.order_id
       UNION ALL
       SELECT refunds.recorded_at, refunds.id, 1, coalesce(orders.strategy, ''), refunds.chain_id, refunds.chain_id,
         refunds.token, refunds.token, '0', '0', refunds.token, refunds.amount
       FROM refunds JOIN orders ON orders.id = refunds.order_id
     ) ORDER BY at, refund, n`,
  )
  const selectOpenCounts = db.prepare<[], { strategy: string; count: number }>(
    "SELECT coalesce(strategy, '') AS strategy, count(*) AS count FROM orders INDEXED BY orders_open WHERE open = 1 GROUP BY strategy",
  )

  return {
    orderPage: ({ strategy, status, mode, chainId, open, ...range }: OrderPageParameters): Positioned<JournalOrder>[] =>
      page(
        'SELECT * FROM (SELECT orders.*, orders.rowid AS position FROM orders)',
        [
          ['strategy = ?', strategy],
          ['status = ?', status],
          ['mode = ?', mode],
          ['chain_id = ?', chainId],
          ['open = ?', open === undefined ? undefined : Number(open)],
        ],
        range,
        (row) => orderRowSchema.parse(row),
      ),
    fillPage: (parameters: FillPageParameters): Positioned<JournalFill>[] =>
      flowPage('fills', parameters, (row) => fillRowSchema.parse(row)),
    refundPage: (parameters: FillPageParameters): Positioned<JournalRefund & { id: number }>[] =>
      flowPage('refunds', parameters, (row) => ({ ...refundRowSchema.parse(row), id: (row as { id: number }).id })),
    /** Every fill and refund in the order they were journaled. */
    flows: (): FlowRow[] => selectFlows.all(),
    /** Orders not final, per strategy. */
    openOrderCounts: (): Record<string, number> =>
      Object.fromEntries(selectOpenCounts.all().map(({ strategy, count }) => [strategy, count])),
  }
}
