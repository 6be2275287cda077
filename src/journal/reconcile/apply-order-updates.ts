import { isFinalStatus, type OrderMode } from '../../domain/order-status.js'
import type { Logger } from '../../log/logger.js'
import type { Journal, OrderEvent } from '../journal.js'
import type { RecordRefundParameters } from '../refunds.js'
import { type FillMismatch, failureMessage, type ReconcileNote, type ReconcileReport } from './reconcile-report.js'

/** What one order's reconciliation found: new fills and status (in that order), refunds, and what the report says. */
export type OrderUpdate = {
  orderId: string
  mode: OrderMode
  /** Fills first, then the status change: an order never reaches a final status without its fills. */
  events: OrderEvent[]
  refunds: RecordRefundParameters[]
  /** New fills among `events` whose figures the chain confirmed, and those only the venue reported. */
  chainConfirmedFills: number
  venueOnlyFills: number
  mismatches: FillMismatch[]
  notes: ReconcileNote[]
}

export function emptyOrderUpdate(orderId: string, mode: OrderMode): OrderUpdate {
  return { orderId, mode, events: [], refunds: [], chainConfirmedFills: 0, venueOnlyFills: 0, mismatches: [], notes: [] }
}

/**
 * Writes a page of updates: each order's refunds first (a refund is never lost behind a final status), then every
 * status change and fill of the page in one journal transaction. When that transaction fails, the orders are written
 * one by one so that one bad order does not hold back the rest; its failure goes into the report. Returns the orders
 * that reached a final status.
 */
export function applyOrderUpdates(journal: Journal, updates: readonly OrderUpdate[], report: ReconcileReport, logger?: Logger): string[] {
  const ready: OrderUpdate[] = []
  for (const update of updates) {
    try {
      let refunds = 0
      for (const refund of update.refunds) if (journal.recordRefund(refund)) refunds++
      report.refunds += refunds
      ready.push(update)
    } catch (error) {
      fail(update, error, report, logger)
    }
  }
  const written: OrderUpdate[] = []
  try {
    journal.appendOrderEvents(ready.flatMap((update) => update.events))
    written.push(...ready)
  } catch {
    for (const update of ready) {
      try {
        if (update.events.length > 0) journal.appendOrderEvents(update.events)
        written.push(update)
      } catch (error) {
        fail(update, error, report, logger)
      }
    }
  }
  for (const update of written) count(update, report, logger)
  return written
    .filter((update) => update.events.some((event) => event.type === 'status' && isFinalStatus(update.mode, event.status)))
    .map((update) => update.orderId)
}

function count(update: OrderUpdate, report: ReconcileReport, logger: Logger | undefined): void {
  report.statusChanges += update.events.filter((event) => event.type === 'status').length
  report.fills.recorded += update.chainConfirmedFills + update.venueOnlyFills
  report.fills.chainConfirmed += update.chainConfirmedFills
  report.fills.venueOnly += update.venueOnlyFills
  for (const mismatch of update.mismatches) {
    report.mismatches.push(mismatch)
    logger?.warn(
      {
        orderId: mismatch.orderId,
        txHash: mismatch.txHash,
        leg: mismatch.leg,
        venue: String(mismatch.venue),
        chain: String(mismatch.chain),
      },
      'venue fill figure differs from the chain; the chain figure is recorded',
    )
  }
  report.notes.push(...update.notes)
}

function fail(update: OrderUpdate, error: unknown, report: ReconcileReport, logger: Logger | undefined): void {
  report.errors.push({ orderId: update.orderId, mode: update.mode, stage: 'journal', message: failureMessage(error) })
  logger?.error({ err: error, orderId: update.orderId }, 'reconcile could not write the order to the journal')
}
