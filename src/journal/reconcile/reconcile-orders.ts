import type { Address } from 'viem'
import type { ApiClient } from '../../api/client.js'
import type { Logger } from '../../log/logger.js'
import type { Clock } from '../../time/clock.js'
import type { Journal } from '../journal.js'
import { completeIntents } from './complete-intents.js'
import type { ReconcileChains } from './reconcile-chains.js'
import { reconcileDeltaOrders } from './reconcile-delta-orders.js'
import { reconcileMarketTransactions } from './reconcile-market-transactions.js'
import { reconcileOtcOrders } from './reconcile-otc-orders.js'
import { createReconcileReport, type ReconcileReport } from './reconcile-report.js'

export type ReconcileOrdersParameters = {
  journal: Journal
  api: ApiClient
  /** Clients of the chains the account trades on: fills are checked against their logs. */
  chains: ReconcileChains
  account: Address
  clock: Clock
  logger?: Logger | undefined
  /** Stops the run between reads; it then throws the signal's reason (what was written stays written). */
  signal?: AbortSignal | undefined
  /** Up to this many open Delta orders are read one by one instead of paging the account's open orders. Default 20. */
  singleReadLimit?: number | undefined
  /** Venue reads and chain checks in flight at once. Default 16. */
  concurrency?: number | undefined
  /**
   * Chains whose RPC is down: their orders (by source or destination chain) and transactions are left for a later run
   * and counted in the report's `skipped`.
   */
  skipChains?: ReadonlySet<number> | undefined
}

export type ReconcileOrdersReturnType = ReconcileReport & { account: Address; startedAt: number; finishedAt: number }

/**
 * Brings the journal up to date with the venue and the chains for the account's submitted orders: Delta orders from
 * the order endpoints (status, fills checked against Transfer logs, bridge refunds), OTC orders from /ft/order and the
 * RFQ contract's fill logs, Market transactions from their receipts. Marks intents done once all their orders are
 * final. Running it again changes nothing; one order that cannot be reconciled goes into the report's errors and the
 * others continue.
 *
 * @example
 * const report = await reconcileOrders({ journal, api, chains, account: account.address, clock: systemClock, logger })
 * if (report.mismatches.length > 0) logger.warn({ mismatches: report.mismatches }, 'venue and chain disagree')
 */
export async function reconcileOrders(parameters: ReconcileOrdersParameters): Promise<ReconcileOrdersReturnType> {
  const { journal, api, chains, clock, signal } = parameters
  const startedAt = clock.now()
  const logger = parameters.logger?.child({ unit: 'reconcile', account: parameters.account })
  const account = parameters.account.toLowerCase() as Address
  const concurrency = parameters.concurrency ?? 16
  const report = createReconcileReport()
  signal?.throwIfAborted()

  const skip = parameters.skipChains ?? new Set<number>()
  const ours = journal.openOrders().filter((order) => order.account === account && order.submitted)
  const open = ours.filter((order) => !skip.has(order.chainId) && !skip.has(order.destChainId))
  report.skipped = { chains: [...skip].sort((a, b) => a - b), orders: ours.length - open.length, transactions: 0 }
  const delta = open.filter((order) => order.mode === 'delta' && (order.venueId !== null || order.orderHash !== null))
  const otc = open.filter((order) => order.mode === 'otc' && order.orderHash !== null)
  const shared = { journal, chains, account, report, logger, signal, concurrency }
  const [endedDelta, endedOtc, endedSwaps] = await Promise.all([
    reconcileDeltaOrders({ ...shared, api, orders: delta, singleReadLimit: parameters.singleReadLimit ?? 20 }),
    reconcileOtcOrders({ ...shared, api, orders: otc }),
    reconcileMarketTransactions({ ...shared, skipChains: skip }),
  ])

  // Intents whose last open order may have ended in this run.
  const intentOf = new Map(open.map((order) => [order.id, order.intentId]))
  const intentIds = new Set<string>()
  for (const orderId of [...endedDelta, ...endedOtc, ...endedSwaps]) {
    const intentId = intentOf.get(orderId) ?? journal.getOrder({ id: orderId })?.intentId
    if (intentId !== undefined) intentIds.add(intentId)
  }
  report.intentsCompleted = completeIntents(journal, intentIds)

  const finishedAt = clock.now()
  logger?.info(
    {
      checked: report.checked,
      statusChanges: report.statusChanges,
      fills: report.fills,
      refunds: report.refunds,
      transactions: report.transactions,
      intentsCompleted: report.intentsCompleted,
      mismatches: report.mismatches.length,
      errors: report.errors.length,
      ...(skip.size > 0 ? { skipped: report.skipped } : {}),
      durationMs: finishedAt - startedAt,
    },
    'reconciled orders',
  )
  return { ...report, account, startedAt, finishedAt }
}
