import type { Address } from 'viem'
import { sandboxAddress } from '../chains/catalogue.js'

/** A simulated solver competing in Delta auctions. Its address is impersonated; it pays fills from its inventory. */
export type AgentProfile = {
  /** Name as `/v2/delta/agents/list` and `includeAgents` / `excludeAgents` use it. */
  name: string
  address: Address
  /** What the agent gives up against the pools' price, basis points (its quote = pool quote − edge for a sell). */
  edgeBps: number
  /** Spread of its bids around the edge, basis points (random per auction, seeded). */
  jitterBps: number
}

export const agentProfiles: readonly AgentProfile[] = [
  { name: 'sandbox-alpha', address: sandboxAddress('agent.alpha'), edgeBps: 5, jitterBps: 4 },
  { name: 'sandbox-beta', address: sandboxAddress('agent.beta'), edgeBps: 8, jitterBps: 6 },
  { name: 'sandbox-gamma', address: sandboxAddress('agent.gamma'), edgeBps: 12, jitterBps: 10 },
]

/** Auction window in sandbox seconds: bids are collected this long after an order becomes fillable. */
export const auctionWindowSeconds = 2
