import { setMaxListeners } from 'node:events'
import { isFinalStatus } from '../domain/order-status.js'
import type { JournalOrder } from '../journal/orders.js'
import { reconcileOrders } from '../journal/reconcile/reconcile-orders.js'
import { clockSpeed } from '../time/clock-timer.js'
import type { Session } from './open-session.js'

type SettleSession = Pick<Session, 'journal' | 'api' | 'chains' | 'account' | 'clock'> & { logger?: Session['logger'] | undefined }

export type SettleOrderParameters = {
  orderId: string
  /** How long to keep reconciling a Delta order that is not final, in ms of the session's clock (0: one pass). */
  waitMs: number
  /** Real ms between passes. */
  pollMs?: number | undefined
}

/**
 * Reconciles the journal until the order is final: a Market receipt at once, a Delta order until final or until
 * `waitMs` of the venue's clock passed. Returns the order as the journal then holds it.
 */
export async function settleOrder(
  session: SettleSession,
  { orderId, waitMs, pollMs = 500 }: SettleOrderParameters,
): Promise<JournalOrder | undefined> {
  const { journal, api, chains, account, clock, logger } = session
  const until = clock.now() + waitMs
  for (;;) {
    await reconcileOrders({ journal, api, chains, account: account.address, clock, logger })
    const order = journal.getOrder({ id: orderId })
    const final = order !== undefined && isFinalStatus(order.mode, order.status)
    if (final || order?.mode !== 'delta' || clock.now() >= until) return order
    await new Promise((resolve) => setTimeout(resolve, pollMs))
  }
}

export type SettleOrdersParameters = {
  /** Local ids of journal orders. */
  orderIds: readonly string[]
  /** How long to keep reconciling while any of them is not final, in ms of the session's clock (0: one pass). */
  waitMs: number
  /** Real ms between passes (default 500). */
  pollMs?: number | undefined
}

export type SettleOrdersReturnType = {
  /** The orders that reached a final status, as the journal holds them. */
  final: JournalOrder[]
  /** The orders still not final when the time was up (an id the journal lacks is left out). */
  pending: JournalOrder[]
  /** Ms of the session's clock spent following them. */
  waitedMs: number
}

/**
 * Reconciles the journal until every order is final or `waitMs` of the venue's clock passed, whichever comes first.
 * The first pass always runs to its end (on a fast sandbox clock the whole wait may be shorter than one pass); a later
 * pass still running when the time is up is stopped between reads (what it wrote stays). A pass that fails is logged
 * and the next one tries again.
 */
export async function settleOrders(
  session: SettleSession,
  { orderIds, waitMs, pollMs = 500 }: SettleOrdersParameters,
): Promise<SettleOrdersReturnType> {
  const { journal, api, chains, account, clock, logger } = session
  const started = clock.now()
  const until = started + Math.max(0, waitMs)
  const read = () => {
    const orders = orderIds.flatMap((id) => journal.getOrder({ id }) ?? [])
    return {
      final: orders.filter((order) => isFinalStatus(order.mode, order.status)),
      pending: orders.filter((order) => !isFinalStatus(order.mode, order.status)),
    }
  }
  let state = read()
  for (let pass = 0; state.pending.length > 0; pass++) {
    if (pass > 0) {
      if (waitMs <= 0 || clock.now() >= until) break
      await new Promise((resolve) => setTimeout(resolve, pollMs))
    }
    const signal = pass === 0 ? undefined : timeUpSignal(Math.max(pollMs, (until - clock.now()) / clockSpeed(clock)))
    try {
      await reconcileOrders({ journal, api, chains, account: account.address, clock, logger, signal })
    } catch (error) {
      if (signal?.aborted) logger?.debug({ pending: state.pending.length }, 'the time to follow orders is up')
      else logger?.warn({ err: error, pending: state.pending.length }, 'reconciliation while following orders failed; trying again')
    }
    state = read()
  }
  return { ...state, waitedMs: clock.now() - started }
}

/** Aborts after `realMs` (rounded up: timers take whole ms); each read in flight listens to it (16 at once by default). */
function timeUpSignal(realMs: number): AbortSignal {
  const signal = AbortSignal.timeout(Math.ceil(realMs))
  setMaxListeners(0, signal)
  return signal
}
