import { auctionWindowSeconds } from '../agents.js'
import type { StoredDeltaOrder } from '../order-store.js'
import { drawBiddingRound, eligibleAgents } from './agent-bids.js'
import { applyQueuedCancel } from './cancellation.js'
import { deadlinePassed } from './deadline.js'
import { type EngineContext, sourceChainOf } from './engine-context.js'
import { executeFill } from './execute-fill.js'
import { filledOfOrder, standardFillLimit } from './order-terms.js'
import { planFill } from './plan-fill.js'

/** Sandbox ms between an auction without an acceptable bid and the next one. */
export const auctionRetryMs = 3_000

/**
 * One auction of a PENDING MARKET order: the eligible agents bid for `auctionWindowSeconds` of sandbox time, then the
 * best bid that meets the order's limit settles the whole order. Without one the order stays PENDING for a later
 * auction. A cancel that arrived meanwhile is applied afterwards, unless the fill went through.
 */
export async function runMarketAuction(context: EngineContext, order: StoredDeltaOrder): Promise<void> {
  const runtime = context.runtime(order)
  const chain = sourceChainOf(context, order)
  if (!chain) return
  runtime.busy = true
  order.auctionInFlight = true
  context.store.touch(order, context.now())
  try {
    await context.sleep(auctionWindowSeconds * 1000)
    if (context.stopped() || order.status !== 'PENDING' || deadlinePassed(context.now(), order)) return
    const { terms } = runtime
    const fillAmount = terms.total - filledOfOrder(order, terms)
    const round = drawBiddingRound(eligibleAgents(order), context.venue.random)
    const plan = planFill(context, order, terms, fillAmount, standardFillLimit(order, fillAmount), round)
    if (!plan) {
      runtime.nextAttemptAt = context.now() + auctionRetryMs
      return
    }
    await executeFill(context, chain, plan)
  } finally {
    order.auctionInFlight = false
    runtime.busy = false
    context.store.touch(order, context.now())
    applyQueuedCancel(context, order)
  }
}
