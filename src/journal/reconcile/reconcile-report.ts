import type { OrderMode } from '../../domain/order-status.js'

/** A venue figure the chain contradicts; the chain figure is the one recorded. */
export type FillMismatch = {
  orderId: string
  txHash: string
  /** spent: source token out of the owner; received: destination token into the beneficiary. */
  leg: 'spent' | 'received'
  venue: bigint
  chain: bigint
}

/** Something the report reader should know about a recorded figure (a native leg, an undelivered bridge transfer). */
export type ReconcileNote = { orderId: string; txHash?: string; note: string }

/** One order (or, without orderId, one venue page) that could not be reconciled this time; the next run tries again. */
export type ReconcileFailure = {
  orderId?: string
  /** A Market transaction's hash. */
  txHash?: string
  mode: OrderMode
  /** venue, chain, journal, list */
  stage: string
  message: string
}

export type ReconcileReport = {
  /** Journal orders compared with the venue (Delta, OTC) and pending Market transactions compared with the chain. */
  checked: { delta: number; otc: number; market: number }
  statusChanges: number
  /** New fills; chainConfirmed: figures read from Transfer or RFQ logs; venueOnly: the venue's figures, unverified. */
  fills: { recorded: number; chainConfirmed: number; venueOnly: number }
  refunds: number
  transactions: { mined: number; reverted: number; dropped: number }
  intentsCompleted: number
  /** Requests to the venue's Delta order endpoints: list pages and single reads. */
  venueReads: { pages: number; single: number }
  mismatches: FillMismatch[]
  notes: ReconcileNote[]
  errors: ReconcileFailure[]
}

export function createReconcileReport(): ReconcileReport {
  return {
    checked: { delta: 0, otc: 0, market: 0 },
    statusChanges: 0,
    fills: { recorded: 0, chainConfirmed: 0, venueOnly: 0 },
    refunds: 0,
    transactions: { mined: 0, reverted: 0, dropped: 0 },
    intentsCompleted: 0,
    venueReads: { pages: 0, single: 0 },
    mismatches: [],
    notes: [],
    errors: [],
  }
}

/** The error's first line, for the report (the logger gets the whole error). */
export function failureMessage(error: unknown): string {
  if (error instanceof Error) {
    const short = (error as { shortMessage?: unknown }).shortMessage
    return typeof short === 'string' ? short : (error.message.split('\n')[0] ?? error.name)
  }
  return String(error)
}
