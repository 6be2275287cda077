import type { ChainVenue } from '../../venue/chain-venue.js'
import { formatAmountUsd } from '../../venue/usd.js'
import type { AgentProfile } from '../agents.js'
import { quoteBestAgent } from './agent-quotes.js'
import type { DeltaToken } from './delta-tokens.js'

/** One swap on one chain inside a route (or no swap at all, when both sides are the same asset). */
export type Leg = {
  input: bigint
  output: bigint
  /** How much worse than the pools' marginal price, percent. */
  impactPercent: number
  /** The same shortfall in USD. */
  lossUsd: number
}

export type QuoteLegParameters = {
  chain: ChainVenue
  from: DeltaToken
  to: DeltaToken
  /** `from` amount for SELL, `to` amount for BUY. */
  amount: bigint
  side: 'SELL' | 'BUY'
  agents: readonly AgentProfile[]
  random: () => number
}

/** The best agent's quote for a swap; undefined when the pools cannot fill it. */
export function quoteLeg({ chain, from, to, amount, side, agents, random }: QuoteLegParameters): Leg | undefined {
  if (from.pooled.address === to.pooled.address) return { input: amount, output: amount, impactPercent: 0, lossUsd: 0 }
  const quote = quoteBestAgent({ chain, agents, srcToken: from.pooled.address, destToken: to.pooled.address, amount, side, random })
  if (!quote) return undefined
  if (side === 'SELL') {
    const shortfall = quote.spotAmount > quote.destAmount ? quote.spotAmount - quote.destAmount : 0n
    return {
      input: amount,
      output: quote.destAmount,
      impactPercent: percentOf(shortfall, quote.spotAmount),
      lossUsd: Number(formatAmountUsd(chain, to.pooled.address, shortfall)),
    }
  }
  const excess = quote.srcAmount > quote.spotAmount ? quote.srcAmount - quote.spotAmount : 0n
  return {
    input: quote.srcAmount,
    output: amount,
    impactPercent: percentOf(excess, quote.spotAmount),
    lossUsd: Number(formatAmountUsd(chain, from.pooled.address, excess)),
  }
}

function percentOf(part: bigint, whole: bigint): number {
  if (whole === 0n) return 100
  return Number((part * 100_000_000n) / whole) / 1_000_000
}

/** `amount` less `bps` basis points (rounded down). */
export function lessBps(amount: bigint, bps: number): bigint {
  return (amount * BigInt(10_000 - bps)) / 10_000n
}

/** `amount` plus `bps` basis points (rounded up). */
export function plusBps(amount: bigint, bps: number): bigint {
  const numerator = amount * BigInt(10_000 + bps)
  return numerator === 0n ? 0n : (numerator - 1n) / 10_000n + 1n
}
