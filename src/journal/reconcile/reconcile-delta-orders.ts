import type { Address } from 'viem'
import type { ApiClient } from '../../api/client.js'
import type { Logger } from '../../log/logger.js'
import type { Journal } from '../journal.js'
import type { JournalOrder } from '../orders.js'
import { applyOrderUpdates, type OrderUpdate } from './apply-order-updates.js'
import { mapConcurrently } from './map-concurrently.js'
import { readVenueDeltaOrders } from './read-venue-delta-orders.js'
import type { ReconcileChains } from './reconcile-chains.js'
import { reconcileDeltaOrder } from './reconcile-delta-order.js'
import { countChainReadError, countVenueReadError, failureMessage, type ReconcileReport } from './reconcile-report.js'

export type ReconcileDeltaOrdersParameters = {
  journal: Journal
  api: ApiClient
  chains: ReconcileChains
  account: Address
  /** Submitted, non-final Delta orders of the account. */
  orders: readonly JournalOrder[]
  report: ReconcileReport
  logger?: Logger | undefined
  signal?: AbortSignal | undefined
  singleReadLimit: number
  concurrency: number
}

/**
 * Reads the venue's copies of the orders page by page and writes each page's changes in one journal transaction.
 * Returns the orders that reached a final status.
 */
export async function reconcileDeltaOrders(parameters: ReconcileDeltaOrdersParameters): Promise<string[]> {
  const { journal, report, logger } = parameters
  const ended: string[] = []
  const chunks = readVenueDeltaOrders({
    api: parameters.api,
    account: parameters.account,
    orders: parameters.orders,
    singleReadLimit: parameters.singleReadLimit,
    concurrency: parameters.concurrency,
    signal: parameters.signal,
    onRequest: (kind) => {
      if (kind === 'page') report.venueReads.pages++
      else report.venueReads.single++
    },
  })
  for await (const { reads, listFailure } of chunks) {
    if (listFailure) {
      const message = `list page ${listFailure.page} failed (${failureMessage(listFailure.error)}); ${listFailure.unchecked} orders not checked`
      report.errors.push({ mode: 'delta', stage: 'list', message })
      countVenueReadError(report, listFailure.error)
      logger?.error({ err: listFailure.error, page: listFailure.page }, 'reconcile could not read the venue order list')
    }
    const updates = await mapConcurrently(reads, parameters.concurrency, async (read): Promise<OrderUpdate | undefined> => {
      if (read.venue === undefined) {
        report.errors.push({ orderId: read.order.id, mode: 'delta', stage: 'venue', message: failureMessage(read.error) })
        countVenueReadError(report, read.error)
        logger?.warn({ err: read.error, orderId: read.order.id }, 'reconcile could not read the order at the venue')
        return undefined
      }
      report.checked.delta++
      try {
        return await reconcileDeltaOrder({ journal, order: read.order, venue: read.venue, chains: parameters.chains })
      } catch (error) {
        parameters.signal?.throwIfAborted()
        report.errors.push({ orderId: read.order.id, mode: 'delta', stage: 'chain', message: failureMessage(error) })
        countChainReadError(report, error, read.order.chainId)
        logger?.warn({ err: error, orderId: read.order.id }, 'reconcile could not check the order on the chain')
        return undefined
      }
    })
    ended.push(
      ...applyOrderUpdates(
        journal,
        updates.filter((update) => update !== undefined),
        report,
        logger,
      ),
    )
  }
  return ended
}
