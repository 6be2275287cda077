import { z } from 'zod'
import type { DeltaOrder } from '../../api/delta/delta-order-schema.js'
import { getDeltaOrderByHash } from '../../api/delta/get-delta-order-by-hash.js'
import { submitDeltaOrder } from '../../api/delta/submit-delta-order.js'
import { jsonObjectSchema } from '../../api/json.js'
import type { Journal } from '../../journal/journal.js'
import { JournalConflictError } from '../../journal/journal-errors.js'
import type { JournalOrder } from '../../journal/orders.js'
import { isFinalDeltaStatus } from '../../protocol/delta-status.js'
import { unixSeconds } from '../../time/clock.js'
import { isFinalRefusal, isNotFound, reasonOf } from './execution-errors.js'
import type { ExecutorContext } from './executor-context.js'

const storedDeltaPayloadSchema = z.object({
  chainId: z.number().int(),
  order: jsonObjectSchema,
  signature: z.custom<`0x${string}`>((value) => typeof value === 'string' && /^0x[0-9a-fA-F]*$/.test(value)),
  type: z.enum(['MARKET', 'LIMIT']),
  partiallyFillable: z.boolean(),
})

/**
 * Submits a journaled Delta order exactly as it was signed. Submitting the same order twice is harmless at the venue
 * (it answers the stored order for a known hash), so a retry after a lost answer cannot create a second order.
 * A final refusal marks the order FAILED and its intent failed; anything else (network, 5xx) leaves it in flight for
 * startup recovery and is rethrown.
 */
export async function submitStoredDeltaOrder(context: ExecutorContext, order: JournalOrder): Promise<JournalOrder> {
  const payload = storedDeltaPayloadOf(order)
  try {
    const venueOrder = await submitDeltaOrder(context.api, payload)
    return acceptVenueDeltaOrder(context.journal, order, venueOrder)
  } catch (error) {
    if (!isFinalRefusal(error)) throw error
    const reason = reasonOf(error)
    context.logger?.warn({ orderId: order.id, orderHash: order.orderHash, reason }, 'the venue refused the Delta order')
    context.journal.closeUnsentOrder({
      orderId: order.id,
      status: 'FAILED',
      reason,
      statusReason: `refused at submission: ${reason}`,
      stage: 'venue',
    })
    return context.journal.getOrder({ id: order.id }) as JournalOrder
  }
}

/** The submission body of a journaled Delta order, read back exactly as it was signed. */
export function storedDeltaPayloadOf(order: JournalOrder): z.output<typeof storedDeltaPayloadSchema> {
  return storedDeltaPayloadSchema.parse(order.signedPayload)
}

/**
 * Startup recovery of a Delta order that was signed but not known to be submitted: the venue's copy (by hash) makes
 * it submitted; without one it is submitted now if it stays valid long enough, else it is recorded EXPIRED unsent.
 */
export async function resolveInFlightDeltaOrder(context: ExecutorContext, order: JournalOrder): Promise<JournalOrder> {
  if (order.orderHash === null) throw new JournalConflictError('a Delta order without an order hash', { orderId: order.id })
  try {
    const venueOrder = await getDeltaOrderByHash(context.api, { orderHash: order.orderHash as `0x${string}` })
    return acceptVenueDeltaOrder(context.journal, order, venueOrder)
  } catch (error) {
    if (!isNotFound(error)) throw error
  }
  const now = unixSeconds(context.clock)
  if (order.deadline !== null && order.deadline - context.settings.resubmitMarginSeconds <= now) {
    const reason = `signed but never reached the venue, and its deadline ${order.deadline} is too close to resubmit (now ${now})`
    context.journal.closeUnsentOrder({ orderId: order.id, status: 'EXPIRED', reason, stage: 'venue' })
    return context.journal.getOrder({ id: order.id }) as JournalOrder
  }
  context.logger?.info({ orderId: order.id, orderHash: order.orderHash }, 'submitting a Delta order the venue has not seen')
  return submitStoredDeltaOrder(context, order)
}

/**
 * The venue holds the order: it is submitted under the venue's id, with the venue's status unless that is final. A
 * final order (settled while the answer to its submission was lost) may carry fills and refunds: the reconciler records
 * them before its final status. Recorded here, the status would close the order without them, and the reconciler never
 * reads a closed order again.
 */
export function acceptVenueDeltaOrder(journal: Journal, order: JournalOrder, venueOrder: DeltaOrder): JournalOrder {
  if (order.orderHash !== null && venueOrder.orderHash.toLowerCase() !== order.orderHash) {
    throw new JournalConflictError('the venue answered another order hash', {
      orderId: order.id,
      orderHash: order.orderHash,
      venueOrderHash: venueOrder.orderHash,
    })
  }
  journal.markSubmitted(order.id, { venueId: venueOrder.id })
  if (!isFinalDeltaStatus(venueOrder.status)) journal.recordStatus({ orderId: order.id, status: venueOrder.status, reason: 'venue' })
  return journal.getOrder({ id: order.id }) as JournalOrder
}
