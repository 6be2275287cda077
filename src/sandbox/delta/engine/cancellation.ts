import type { StoredDeltaOrder } from '../order-store.js'
import { type EngineContext, hasBridgeTransfers, moveOrder } from './engine-context.js'

/** Sandbox ms the relayer takes to confirm a cancellation (CANCELLING → CANCELLED). */
export const cancelConfirmationMs = 1_000

const cancellable = new Set(['PENDING', 'ACTIVE', 'SUSPENDED', 'AWAITING_SIGNATURE'])

/**
 * Applies a cancel that arrived while an auction or settlement was in flight: the order becomes CANCELLING, unless
 * the fill completed it meanwhile (cancellation does not stop an in-flight fill; the fill stands).
 */
export function applyQueuedCancel(context: EngineContext, order: StoredDeltaOrder): void {
  if (!order.cancelQueued) return
  order.cancelQueued = false
  if (cancellable.has(order.status)) moveOrder(context, order, 'CANCELLING', 'cancel queued during an auction')
  else context.store.touch(order, context.now())
}

/**
 * CANCELLING → CANCELLED once the relayer's confirmation time has passed. Fills already on a bridge finish first
 * (a fully filled order then ends as its bridge transfers end, not as cancelled).
 */
export function confirmCancel(context: EngineContext, order: StoredDeltaOrder): void {
  const since = order.history.findLast((entry) => entry.status === 'CANCELLING')?.at ?? order.updatedAt
  if (context.now() - since < cancelConfirmationMs || hasBridgeTransfers(context, order)) return
  moveOrder(context, order, 'CANCELLED')
}
