import type { StoredDeltaOrder } from '../order-store.js'
import { drawBiddingRound, eligibleAgents } from './agent-bids.js'
import { applyQueuedCancel } from './cancellation.js'
import { type EngineContext, sourceChainOf } from './engine-context.js'
import { executeFill } from './execute-fill.js'
import { findLargestFill } from './largest-fill.js'
import { filledOfOrder, standardFillLimit } from './order-terms.js'
import { planFill } from './plan-fill.js'
import type { FillPlan } from './settle-fill.js'

/** Sandbox ms between two evaluations of a resting LIMIT order when the pools do not move. */
export const limitRecheckMs = 3_000
/** Smallest partial fill, as a share of the order (1/100): no dust fills when the market barely crosses. */
const minimumPartDivisor = 100n
/** Precision of the partial-fill search, as a share of the order (1/10000). */
const searchPrecisionDivisor = 10_000n

/** Whether an ACTIVE LIMIT order should be looked at again: its chain's pools moved, or it has rested long enough. */
export function isLimitEvaluationDue(context: EngineContext, order: StoredDeltaOrder): boolean {
  const runtime = context.runtime(order)
  const chain = sourceChainOf(context, order)
  return !!chain && (chain.blockNumber !== runtime.evaluatedBlock || context.now() >= runtime.nextAttemptAt)
}

/**
 * Evaluates a resting LIMIT order against one round of agent bids: the whole remainder when an agent meets the limit
 * for it; with `partiallyFillable`, else the largest part some agent meets the limit for. Undefined: keep resting.
 */
export function evaluateLimitOrder(context: EngineContext, order: StoredDeltaOrder): FillPlan | undefined {
  const runtime = context.runtime(order)
  const chain = sourceChainOf(context, order)
  if (!chain) return undefined
  runtime.evaluatedBlock = chain.blockNumber
  runtime.nextAttemptAt = context.now() + limitRecheckMs
  const { terms } = runtime
  const remaining = terms.total - filledOfOrder(order, terms)
  const round = drawBiddingRound(eligibleAgents(order), context.venue.random)
  const planFor = (amount: bigint) => planFill(context, order, terms, amount, standardFillLimit(order, amount), round)
  if (!terms.partial) return planFor(remaining)
  const minimum = terms.total / minimumPartDivisor
  const amount = findLargestFill(minimum, remaining, terms.total / searchPrecisionDivisor, (candidate) => planFor(candidate) !== undefined)
  return amount === undefined ? undefined : planFor(amount)
}

/** Settles a LIMIT fill found by the evaluation; the order counts as in an auction meanwhile (cancels queue). */
export async function settleLimitFill(context: EngineContext, plan: FillPlan): Promise<void> {
  const { order } = plan
  const runtime = context.runtime(order)
  const chain = sourceChainOf(context, order)
  if (!chain) return
  runtime.busy = true
  order.auctionInFlight = true
  context.store.touch(order, context.now())
  try {
    await executeFill(context, chain, plan)
  } finally {
    order.auctionInFlight = false
    runtime.busy = false
    context.store.touch(order, context.now())
    applyQueuedCancel(context, order)
  }
}
