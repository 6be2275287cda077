import type { DeltaOrderStatus, StoredDeltaOrder } from '../order-store.js'
import { type EngineContext, moveOrder } from './engine-context.js'
import { remainingSourceNeed } from './order-terms.js'
import { readOwnerFunding } from './owner-funding.js'

/** Sandbox ms between two funding checks of the open orders. */
export const fundingCheckMs = 3_000

const watched: ReadonlySet<DeltaOrderStatus> = new Set(['PENDING', 'ACTIVE', 'SUSPENDED'])

/** Orders whose owners' funding the next check reads: open, waiting for a fill, not in the middle of one. */
export function ordersToCheck(context: EngineContext): StoredDeltaOrder[] {
  return context.store.open().filter((order) => watched.has(order.status) && !context.runtime(order).busy)
}

/**
 * Checks each open order's owner still covers what the order needs (balance, or deposit for a native source, and
 * allowance to the Delta contract): short → SUSPENDED, remembering the status it had; covered again → back to it.
 * One batch of reads per chain.
 */
export async function checkOwnerFunding(context: EngineContext, orders: readonly StoredDeltaOrder[]): Promise<void> {
  const byChain = new Map<number, StoredDeltaOrder[]>()
  for (const order of orders) byChain.set(order.chainId, [...(byChain.get(order.chainId) ?? []), order])
  const nowSeconds = BigInt(Math.floor(context.now() / 1000))
  await Promise.all(
    [...byChain].map(async ([chainId, list]) => {
      const chain = context.venue.chains.get(chainId)
      if (!chain) return
      const statusAtRead = new Map(list.map((order) => [order, order.status]))
      const funding = await readOwnerFunding(
        chain,
        list.map((order) => ({ order, terms: context.runtime(order).terms })),
        nowSeconds,
      )
      for (const order of list) {
        const found = funding.get(order.id)
        // Skip orders that moved while the reads were out.
        if (!found || order.status !== statusAtRead.get(order) || context.runtime(order).busy) continue
        const need = remainingSourceNeed(order, context.runtime(order).terms)
        const shortBy = found.balance < need ? 'InsufficientBalance' : found.allowance < need ? 'InsufficientAllowance' : undefined
        if (shortBy && order.status !== 'SUSPENDED') {
          context.runtime(order).suspendedFrom = order.status
          moveOrder(context, order, 'SUSPENDED', shortBy)
        } else if (!shortBy && order.status === 'SUSPENDED') {
          moveOrder(context, order, context.runtime(order).suspendedFrom ?? statusBeforeSuspension(order))
        }
      }
    }),
  )
}

function statusBeforeSuspension(order: StoredDeltaOrder): DeltaOrderStatus {
  const entries = order.history
  for (let index = entries.length - 1; index > 0; index--) {
    if (entries[index]?.status === 'SUSPENDED' && entries[index - 1]?.status !== 'SUSPENDED') return entries[index - 1]?.status ?? 'PENDING'
  }
  return 'PENDING'
}
