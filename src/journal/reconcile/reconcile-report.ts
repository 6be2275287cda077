import type { OrderMode } from '../../domain/order-status.js'
import { BaseError } from '../../errors/base.js'

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

/** A read that failed: a venue endpoint that did not answer usably, or a chain whose RPC failed. */
export type ReconcileReadError = { source: 'venue'; endpoint: string } | { source: 'chain'; chainId: number }

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
  /** The failed reads among `errors`, by endpoint or chain (what the bot counts per pass). */
  readErrors: ReconcileReadError[]
  /** Chains left out of the run (their RPC is down), with their orders and transactions; the next run takes them. */
  skipped: { chains: number[]; orders: number; transactions: number }
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
    readErrors: [],
    skipped: { chains: [], orders: 0, transactions: 0 },
  }
}

/**
 * Notes a failed venue read: an error of the API client (it names its endpoint). Other errors met at the venue stage
 * (an order that is not ours) are not failed reads.
 */
export function countVenueReadError(report: ReconcileReport, error: unknown): void {
  const endpoint = (error as { endpoint?: unknown } | null | undefined)?.endpoint
  if (typeof endpoint === 'string') report.readErrors.push({ source: 'venue', endpoint })
}

/**
 * Notes a failed chain read: an error thrown by viem (an RPC that failed or timed out). deltaflow's own errors at the
 * chain stage (logs behind the venue, no client for the chain) are not failed reads.
 */
export function countChainReadError(report: ReconcileReport, error: unknown, chainId: number): void {
  if (!(error instanceof BaseError)) report.readErrors.push({ source: 'chain', chainId })
}

/** The error's first line, for the report (the logger gets the whole error). */
export function failureMessage(error: unknown): string {
  if (error instanceof Error) {
    const short = (error as { shortMessage?: unknown }).shortMessage
    return typeof short === 'string' ? short : (error.message.split('\n')[0] ?? error.name)
  }
  return String(error)
}
