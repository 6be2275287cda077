// Delta V2 order statuses and on-chain order families (API sections 2.2 and 3.1, protocol-facts), shared by the
// client, the journal and the sandbox.

export const deltaOrderStatuses = [
  'PENDING',
  'AWAITING_SIGNATURE',
  'ACTIVE',
  'SUSPENDED',
  'CANCELLING',
  'BRIDGING',
  'COMPLETED',
  'FAILED',
  'EXPIRED',
  'REFUNDING',
  'CANCELLED',
  'REFUNDED',
] as const

export type DeltaOrderStatus = (typeof deltaOrderStatuses)[number]

/** Statuses after which an order never changes; COMPLETED of a crosschain order includes the destination leg. */
export const finalDeltaOrderStatuses = [
  'COMPLETED',
  'FAILED',
  'EXPIRED',
  'CANCELLED',
  'REFUNDED',
] as const satisfies readonly DeltaOrderStatus[]

const finalSet: ReadonlySet<DeltaOrderStatus> = new Set(finalDeltaOrderStatuses)

export function isFinalDeltaStatus(status: DeltaOrderStatus): boolean {
  return finalSet.has(status)
}

export const onChainOrderTypes = ['Order', 'FillableOrder', 'ProductiveOrder', 'ExternalOrder', 'TWAPOrder', 'TWAPBuyOrder'] as const

export type OnChainOrderType = (typeof onChainOrderTypes)[number]
