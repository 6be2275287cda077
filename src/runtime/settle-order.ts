import { isFinalStatus } from '../domain/order-status.js'
import type { JournalOrder } from '../journal/orders.js'
import { reconcileOrders } from '../journal/reconcile/reconcile-orders.js'
import type { Session } from './open-session.js'

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
  session: Pick<Session, 'journal' | 'api' | 'chains' | 'account' | 'clock' | 'logger'>,
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
