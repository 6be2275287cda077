import { type AgentProfile, agentProfiles } from '../agents.js'
import type { StoredDeltaOrder } from '../order-store.js'
import { type FillLimit, meetsLimit, type OrderTerms } from './order-terms.js'

/**
 * An agent's price for one fill. SELL: destination the agent pays (partner fee included); BUY: source it takes
 * (fee excluded). This is the `agentAmount` of the settlement.
 */
export type AgentBid = { agent: AgentProfile; amount: bigint }

/** One round of bidding: each eligible agent's markup against the pools, in millionths, fixed for the round. */
export type BiddingRound = { agent: AgentProfile; markupPpm: bigint }[]

/** Agents allowed on the order by its `includeAgents` / `excludeAgents` lists (names, any case). */
export function eligibleAgents(order: StoredDeltaOrder): AgentProfile[] {
  const include = order.includeAgents?.length ? new Set(order.includeAgents.map((name) => name.toLowerCase())) : undefined
  const exclude = new Set((order.excludeAgents ?? []).map((name) => name.toLowerCase()))
  return agentProfiles.filter((agent) => (!include || include.has(agent.name.toLowerCase())) && !exclude.has(agent.name.toLowerCase()))
}

/** Draws each agent's markup for a round: its edge, spread by up to ± its jitter (seeded). */
export function drawBiddingRound(agents: readonly AgentProfile[], random: () => number): BiddingRound {
  return agents.map((agent) => {
    const bps = agent.edgeBps + (2 * random() - 1) * agent.jitterBps
    return { agent, markupPpm: BigInt(Math.max(0, Math.round(bps * 100))) }
  })
}

/** Every agent's bid on a fill the pools price at `poolAmount` (SELL: their output; BUY: their input). */
export function bidsOf(round: BiddingRound, side: 'SELL' | 'BUY', poolAmount: bigint): AgentBid[] {
  return round.map(({ agent, markupPpm }) => ({
    agent,
    amount:
      side === 'SELL'
        ? (poolAmount * (1_000_000n - markupPpm)) / 1_000_000n
        : (poolAmount * (1_000_000n + markupPpm) + 999_999n) / 1_000_000n,
  }))
}

/** The best bid (most paid on a sell, least taken on a buy) when it meets the fill's limit. */
export function winningBid(bids: readonly AgentBid[], limit: FillLimit, terms: OrderTerms): AgentBid | undefined {
  let best: AgentBid | undefined
  for (const bid of bids) {
    if (bid.amount <= 0n) continue
    if (!best || (limit.side === 'SELL' ? bid.amount > best.amount : bid.amount < best.amount)) best = bid
  }
  return best && meetsLimit(limit, best.amount, terms) ? best : undefined
}
