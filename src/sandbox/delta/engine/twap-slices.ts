import { getContractArtifact } from '../../contracts/compile.js'
import type { StoredDeltaOrder } from '../order-store.js'
import { drawBiddingRound, eligibleAgents } from './agent-bids.js'
import { applyQueuedCancel } from './cancellation.js'
import { deadlinePassed } from './deadline.js'
import { type EngineContext, moveOrder, sourceChainOf } from './engine-context.js'
import { executeFill } from './execute-fill.js'
import { twapSlice } from './order-terms.js'
import { planFill } from './plan-fill.js'

/** Sandbox ms before a slice that found no acceptable bid is tried again. */
export const sliceRetryMs = 3_000

/**
 * Settles the next slice of an ACTIVE TWAP order when its interval has passed (the contract's own count and spacing,
 * read from `twapState`, decide which slice and when): the best agent bid within the slice's limit fills it, or the
 * slice waits and is tried again. The last slice completes the order.
 */
export async function runTwapSlice(context: EngineContext, order: StoredDeltaOrder): Promise<void> {
  const { signed } = order
  if (signed.kind !== 'TWAPOrder' && signed.kind !== 'TWAPBuyOrder') return
  const runtime = context.runtime(order)
  const chain = sourceChainOf(context, order)
  const delta = chain?.fixture.contracts.delta
  if (!chain || !delta) return
  runtime.busy = true
  order.auctionInFlight = true
  context.store.touch(order, context.now())
  try {
    const [slicesFilled, lastSliceAt] = (await chain.clients.publicClient.readContract({
      address: delta,
      abi: getContractArtifact('DeltaSettlement').abi,
      functionName: 'twapState',
      args: [order.orderHash],
    })) as readonly [number, bigint]
    const { numSlices, interval } = signed.order
    if (slicesFilled >= numSlices) {
      moveOrder(context, order, 'COMPLETED')
      return
    }
    const nextSliceAt = slicesFilled === 0 ? 0 : Number(lastSliceAt + interval) * 1000
    if (context.now() < nextSliceAt) {
      runtime.nextAttemptAt = nextSliceAt
      return
    }
    if (context.stopped() || deadlinePassed(context.now(), order)) return
    const slice = twapSlice(order, slicesFilled)
    const round = drawBiddingRound(eligibleAgents(order), context.venue.random)
    const plan = planFill(context, order, runtime.terms, slice.fillAmount, slice.limit, round)
    if (!plan) {
      runtime.nextAttemptAt = context.now() + sliceRetryMs
      return
    }
    if (await executeFill(context, chain, plan)) runtime.nextAttemptAt = context.now() + Number(interval) * 1000
  } finally {
    order.auctionInFlight = false
    runtime.busy = false
    context.store.touch(order, context.now())
    applyQueuedCancel(context, order)
  }
}
