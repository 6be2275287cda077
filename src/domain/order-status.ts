import { z } from 'zod'
import { deltaOrderStatuses, finalDeltaOrderStatuses } from '../protocol/delta-status.js'

export const orderModes = ['delta', 'market', 'otc'] as const
export type OrderMode = (typeof orderModes)[number]

/** Local status of every order between signing and the venue's first answer. */
export const signedStatus = 'SIGNED'

/** Statuses per mode: Delta V2 (API 3.1), OTC states (API 3.2), Market transaction outcome (dropped: its nonce went to another transaction). */
export const statusesByMode = {
  delta: deltaOrderStatuses,
  otc: ['DRAFT', 'PENDING', 'FULFILLED', 'CANCELLED', 'SUSPENDED', 'EXPIRED'],
  market: ['sent', 'mined', 'reverted', 'dropped'],
} as const satisfies Record<OrderMode, readonly string[]>

export const finalStatusesByMode = {
  delta: finalDeltaOrderStatuses,
  otc: ['FULFILLED', 'CANCELLED', 'EXPIRED'],
  market: ['mined', 'reverted', 'dropped'],
} as const satisfies { [mode in OrderMode]: readonly (typeof statusesByMode)[mode][number][] }

/** Every status an order row can hold (OTC adds DRAFT and FULFILLED to the Delta names it shares). */
export const orderStatusSchema = z.enum([signedStatus, ...statusesByMode.delta, 'DRAFT', 'FULFILLED', ...statusesByMode.market])
export type OrderStatus = z.infer<typeof orderStatusSchema>

export function isStatusOfMode(mode: OrderMode, status: string): boolean {
  return status === signedStatus || (statusesByMode[mode] as readonly string[]).includes(status)
}

/**
 * Whether an order in `status` can still change: a final order is done (filled, cancelled, expired, failed, refunded,
 * or a Market transaction mined, reverted or dropped).
 *
 * @example
 * onOrderUpdate: ({ order }, { state }) => {
 *   if (isFinalStatus(order.mode, order.status)) state.delete(`open:${order.intentId}`)
 * }
 */
export function isFinalStatus(mode: OrderMode, status: string): boolean {
  return (finalStatusesByMode[mode] as readonly string[]).includes(status)
}
