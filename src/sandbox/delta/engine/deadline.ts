import type { StoredDeltaOrder } from '../order-store.js'

/**
 * True once the order's deadline second is over: the Delta contract still settles at `block.timestamp == deadline`,
 * so the sandbox expires an order only when its clock has moved past that second.
 */
export function deadlinePassed(nowMs: number, order: Pick<StoredDeltaOrder, 'expiresAt'>): boolean {
  return Math.floor(nowMs / 1000) > Math.floor(order.expiresAt / 1000)
}
