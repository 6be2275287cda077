import type { Database } from 'better-sqlite3'

/** How many orders a strategy has of one mode and status. */
export type OrderCount = { strategy: string; mode: string; status: string; count: number }

/** What a strategy's fills and refunds moved of one token on one chain: spent from the wallet, received into it. */
export type TokenFlow = { strategy: string; chainId: number; token: string; spent: bigint; received: bigint; refunded: bigint }

export type RecentFill = {
  orderId: string
  strategy: string
  mode: string
  chainId: number
  txHash: string
  srcToken: string
  destToken: string
  spent: bigint
  received: bigint
  recordedAt: number
}

export type IntentCount = { strategy: string; status: string; count: number }

/** Read-only aggregates for `deltaflow status`, the run summary and the metrics. */
export function createSummaryStatements(db: Database) {
  const selectOrderCounts = db.prepare<[], OrderCount>(
    `SELECT coalesce(strategy, '') AS strategy, mode, status, count(*) AS count FROM orders
     GROUP BY strategy, mode, status ORDER BY strategy, mode, status`,
  )
  const selectIntentCounts = db.prepare<[], IntentCount>(
    'SELECT strategy, status, count(*) AS count FROM intents GROUP BY strategy, status ORDER BY strategy, status',
  )
  // Amounts are TEXT beyond 64 bits: summed in JavaScript, one row per fill.
  const selectFillAmounts = db.prepare<
    [],
    { strategy: string; srcChain: number; destChain: number; srcToken: string; destToken: string; spent: string; received: string }
  >(
    `SELECT coalesce(orders.strategy, '') AS strategy, orders.chain_id AS srcChain,
       coalesce(fills.destination_chain_id, orders.dest_chain_id) AS destChain,
       orders.src_token AS srcToken, orders.dest_token AS destToken, fills.spent_amount AS spent, fills.received_amount AS received
     FROM fills JOIN orders ON orders.id = fills.order_id`,
  )
  const selectRefundAmounts = db.prepare<[], { strategy: string; chainId: number; token: string; amount: string }>(
    `SELECT coalesce(orders.strategy, '') AS strategy, refunds.chain_id AS chainId, refunds.token AS token, refunds.amount AS amount
     FROM refunds JOIN orders ON orders.id = refunds.order_id`,
  )
  const selectRecentFills = db.prepare<[number], Omit<RecentFill, 'spent' | 'received'> & { spent: string; received: string }>(
    `SELECT fills.order_id AS orderId, coalesce(orders.strategy, '') AS strategy, orders.mode AS mode, fills.chain_id AS chainId,
       fills.tx_hash AS txHash, orders.src_token AS srcToken, orders.dest_token AS destToken,
       fills.spent_amount AS spent, fills.received_amount AS received, fills.recorded_at AS recordedAt
     FROM fills JOIN orders ON orders.id = fills.order_id ORDER BY fills.id DESC LIMIT ?`,
  )

  function tokenFlows(): TokenFlow[] {
    const flows = new Map<string, TokenFlow>()
    const flowOf = (strategy: string, chainId: number, token: string): TokenFlow => {
      const key = `${strategy}\n${chainId}\n${token}`
      let flow = flows.get(key)
      if (!flow) {
        flow = { strategy, chainId, token, spent: 0n, received: 0n, refunded: 0n }
        flows.set(key, flow)
      }
      return flow
    }
    for (const row of selectFillAmounts.all()) {
      flowOf(row.strategy, row.srcChain, row.srcToken).spent += BigInt(row.spent)
      flowOf(row.strategy, row.destChain, row.destToken).received += BigInt(row.received)
    }
    for (const row of selectRefundAmounts.all()) flowOf(row.strategy, row.chainId, row.token).refunded += BigInt(row.amount)
    return [...flows.values()].sort(
      (a, b) => a.strategy.localeCompare(b.strategy) || a.chainId - b.chainId || a.token.localeCompare(b.token),
    )
  }

  const countFills = db.prepare<[], number>('SELECT count(*) FROM fills').pluck()
  const countRefunds = db.prepare<[], number>('SELECT count(*) FROM refunds').pluck()

  return {
    fillCount: (): number => countFills.get() ?? 0,
    refundCount: (): number => countRefunds.get() ?? 0,
    orderCounts: (): OrderCount[] => selectOrderCounts.all(),
    intentCounts: (): IntentCount[] => selectIntentCounts.all(),
    tokenFlows,
    recentFills: (limit = 10): RecentFill[] =>
      selectRecentFills.all(limit).map((row) => ({ ...row, spent: BigInt(row.spent), received: BigInt(row.received) })),
  }
}
