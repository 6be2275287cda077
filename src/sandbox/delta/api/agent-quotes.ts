import type { Address } from 'viem'
import { findBestRoute, spotAmount } from '../../market/route-finder.js'
import type { ChainVenue } from '../../venue/chain-venue.js'
import { type AgentProfile, agentProfiles } from '../agents.js'

export type AgentQuote = {
  agent: AgentProfile
  /** SELL: the given amount; BUY: what the agent asks for. */
  srcAmount: bigint
  /** SELL: what the agent offers; BUY: the given amount. */
  destAmount: bigint
  /** The amount the agent quotes, valued at the pools' marginal price (for price impact). */
  spotAmount: bigint
}

export type QuoteAgentsParameters = {
  chain: ChainVenue
  agents: readonly AgentProfile[]
  srcToken: Address
  destToken: Address
  /** srcToken amount for SELL, destToken amount for BUY. */
  amount: bigint
  side: 'SELL' | 'BUY'
  /** Seeded source of each agent's jitter. */
  random: () => number
}

const scale = 1_000_000n

/** Agents named by `includeAgents` (all when absent) minus `excludeAgents`. */
export function selectAgents(include: readonly string[] | undefined, exclude: readonly string[] | undefined): AgentProfile[] {
  return agentProfiles.filter((agent) => (include === undefined || include.includes(agent.name)) && !(exclude ?? []).includes(agent.name))
}

/**
 * Competing agents: each prices the pools' best route and gives up its edge (edgeBps ± a seeded jitter of jitterBps);
 * the best quote wins. Undefined when the pools cannot fill the amount.
 */
export function quoteBestAgent({
  chain,
  agents,
  srcToken,
  destToken,
  amount,
  side,
  random,
}: QuoteAgentsParameters): AgentQuote | undefined {
  const route = findBestRoute({ pools: chain.pools, srcToken, destToken, amount, side })
  if (!route) return undefined
  const spot = spotAmount(route)
  let best: AgentQuote | undefined
  for (const agent of agents) {
    const edgeBps = agent.edgeBps + (random() * 2 - 1) * agent.jitterBps
    // Parts per million of the pool amount the agent keeps.
    const kept = BigInt(Math.max(0, Math.round(edgeBps * 100)))
    const quote: AgentQuote =
      side === 'SELL'
        ? { agent, srcAmount: amount, destAmount: (route.destAmount * (scale - kept)) / scale, spotAmount: spot }
        : { agent, srcAmount: ceilDiv(route.srcAmount * (scale + kept), scale), destAmount: amount, spotAmount: spot }
    if (!best || (side === 'SELL' ? quote.destAmount > best.destAmount : quote.srcAmount < best.srcAmount)) best = quote
  }
  return best && (side === 'SELL' ? best.destAmount > 0n : best.srcAmount > 0n) ? best : undefined
}

export function ceilDiv(numerator: bigint, denominator: bigint): bigint {
  return numerator === 0n ? 0n : (numerator - 1n) / denominator + 1n
}
