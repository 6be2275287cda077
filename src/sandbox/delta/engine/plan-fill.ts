import type { StoredDeltaOrder } from '../order-store.js'
import { type BiddingRound, bidsOf, winningBid } from './agent-bids.js'
import type { EngineContext } from './engine-context.js'
import type { FillLimit, OrderTerms } from './order-terms.js'
import { quoteOnPools } from './pool-quote.js'
import type { FillPlan } from './settle-fill.js'

/**
 * The fill of `fillAmount` the round's best agent would settle: its bid is the pools' best route for the fill less its
 * markup, and it wins only when that meets the fill's limit. Undefined when nobody can.
 */
export function planFill(
  context: EngineContext,
  order: StoredDeltaOrder,
  terms: OrderTerms,
  fillAmount: bigint,
  limit: FillLimit,
  round: BiddingRound,
): FillPlan | undefined {
  if (fillAmount <= 0n || round.length === 0) return undefined
  const poolAmount = quoteOnPools(context.venue, order.chainId, terms, fillAmount)
  if (poolAmount === undefined || poolAmount === 0n) return undefined
  const winner = winningBid(bidsOf(round, terms.side, poolAmount), limit, terms)
  return winner && { order, terms, agent: winner.agent, fillAmount, agentAmount: winner.amount }
}
