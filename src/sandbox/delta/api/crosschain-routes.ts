import type { Address } from 'viem'
import type { ChainVenue } from '../../venue/chain-venue.js'
import type { AgentProfile } from '../agents.js'
import { type BridgeProfile, bridgeableSymbols } from '../bridges.js'
import { ceilDiv } from './agent-quotes.js'
import { encodeBridgeProtocolData } from './bridge-protocol-data.js'
import { type DeltaToken, resolveDeltaToken } from './delta-tokens.js'
import { type Leg, lessBps, plusBps, quoteLeg } from './quote-leg.js'
import { type BridgeTag, type RouteJson, type TokenAmountJson, tokenAmountJson } from './route-json.js'

export type RouteCandidate = { json: RouteJson; impactPercent: number; lossUsd: number }

export type CrosschainRoutesParameters = {
  srcChain: ChainVenue
  destChain: ChainVenue
  src: DeltaToken
  dest: DeltaToken
  amount: bigint
  side: 'SELL' | 'BUY'
  /** Partner fee taken on the source side (of the bridged amount on a sell, on top of the input on a buy). */
  feeBps: number
  agents: readonly AgentProfile[]
  bridges: readonly BridgeProfile[]
  allowBridgeAndSwap: boolean
  gas: TokenAmountJson
  random: () => number
}

type Candidate = {
  bridge: BridgeProfile
  bridgedSrc: DeltaToken
  bridgedDest: DeltaToken
  origin: Leg
  /** Source-chain amount of the bridged token the order commits (after the partner fee on a sell). */
  originOutput: bigint
  originInput: bigint
  delivered: bigint
  bridgeFee: bigint
  destination: Leg
}

/**
 * One route per usable bridge, best return first: swap on the source chain into a bridgeable token (when needed),
 * bridge it, and on a sell with bridge-and-swap allowed swap it on the destination chain into the final token.
 * A lane needs both tokens bridgeable, or bridge-and-swap (forced off for BUY). Empty when nothing routes.
 */
export function quoteCrosschainRoutes(parameters: CrosschainRoutesParameters): RouteCandidate[] {
  const { src, dest, side, bridges } = parameters
  const srcBridgeable = bridgeableSymbols.includes(src.pooled.symbol)
  const destBridgeable = bridgeableSymbols.includes(dest.pooled.symbol)
  const bridgeAndSwap = side === 'SELL' && parameters.allowBridgeAndSwap
  if (bridges.length === 0 || (!(srcBridgeable && destBridgeable) && !bridgeAndSwap)) return []
  // The bridged token: the destination token itself when it can cross, else any bridgeable token (swapped after).
  const symbols = destBridgeable ? [dest.pooled.symbol] : bridgeableSymbols
  const best = new Map<BridgeProfile, Candidate>()
  for (const symbol of symbols) {
    for (const candidate of side === 'SELL' ? sellCandidates(parameters, symbol) : buyCandidates(parameters, symbol)) {
      const current = best.get(candidate.bridge)
      if (!current || betterReturn(side, candidate, current)) best.set(candidate.bridge, candidate)
    }
  }
  const ranked = [...best.values()].sort((a, b) => (betterReturn(side, a, b) ? -1 : betterReturn(side, b, a) ? 1 : 0))
  const fastest = Math.min(...ranked.map((candidate) => candidate.bridge.estimatedTimeMs))
  return ranked.map((candidate, index) => {
    const tags: BridgeTag[] = []
    if (index === 0) tags.push('recommended', 'best-return')
    if (candidate.bridge.estimatedTimeMs === fastest) tags.push('fastest')
    return toRouteCandidate(parameters, candidate, tags)
  })
}

function sellCandidates(parameters: CrosschainRoutesParameters, symbol: string): Candidate[] {
  const { srcChain, destChain, src, dest, amount, feeBps, agents, random } = parameters
  const bridgedSrc = bridgedToken(src, srcChain, symbol)
  const bridgedDest = bridgedToken(dest, destChain, symbol)
  if (!bridgedSrc || !bridgedDest) return []
  const origin = quoteLeg({ chain: srcChain, from: src, to: bridgedSrc, amount, side: 'SELL', agents, random })
  if (!origin) return []
  const originOutput = lessBps(origin.output, feeBps)
  const candidates: Candidate[] = []
  for (const bridge of parameters.bridges) {
    const arriving = scaleAmount(originOutput, bridgedDest.decimals - bridgedSrc.decimals)
    const delivered = lessBps(arriving, bridge.feeBps)
    if (delivered === 0n) continue
    const destination = quoteLeg({ chain: destChain, from: bridgedDest, to: dest, amount: delivered, side: 'SELL', agents, random })
    if (!destination) continue
    candidates.push({
      bridge,
      bridgedSrc,
      bridgedDest,
      origin,
      originOutput,
      originInput: amount,
      delivered,
      bridgeFee: arriving - delivered,
      destination,
    })
  }
  return candidates
}

function buyCandidates(parameters: CrosschainRoutesParameters, symbol: string): Candidate[] {
  const { srcChain, src, dest, amount, feeBps, agents, random } = parameters
  const bridgedSrc = bridgedToken(src, srcChain, symbol)
  if (!bridgedSrc || dest.pooled.symbol !== symbol) return []
  const candidates: Candidate[] = []
  for (const bridge of parameters.bridges) {
    // Enough bridged token that what arrives after the bridge fee is the amount bought.
    const arriving = ceilDiv(amount * 10_000n, BigInt(10_000 - bridge.feeBps))
    const originOutput = scaleAmountUp(arriving, bridgedSrc.decimals - dest.decimals)
    const origin = quoteLeg({ chain: srcChain, from: src, to: bridgedSrc, amount: originOutput, side: 'BUY', agents, random })
    if (!origin) continue
    candidates.push({
      bridge,
      bridgedSrc,
      bridgedDest: dest,
      origin,
      originOutput,
      originInput: plusBps(origin.input, feeBps),
      delivered: amount,
      bridgeFee: arriving - amount,
      destination: { input: amount, output: amount, impactPercent: 0, lossUsd: 0 },
    })
  }
  return candidates
}

function toRouteCandidate(parameters: CrosschainRoutesParameters, candidate: Candidate, tags: BridgeTag[]): RouteCandidate {
  const { srcChain, destChain, src, dest, gas } = parameters
  const { bridge, bridgedSrc, bridgedDest, destination } = candidate
  const finalToken: Address | undefined = bridgedDest.pooled.address === dest.pooled.address ? undefined : dest.orderAddress
  return {
    json: {
      origin: {
        input: tokenAmountJson(srcChain, src, candidate.originInput),
        output: tokenAmountJson(srcChain, bridgedSrc, candidate.originOutput),
      },
      destination: {
        input: tokenAmountJson(destChain, bridgedDest, candidate.delivered),
        output: tokenAmountJson(destChain, dest, destination.output),
      },
      bridge: {
        protocol: bridge.protocol,
        estimatedTimeMs: bridge.estimatedTimeMs,
        tags,
        contractParams: {
          protocolSelector: bridge.protocolSelector,
          outputToken: bridgedDest.wireAddress.toLowerCase(),
          scalingFactor: bridgedDest.decimals - bridgedSrc.decimals,
          protocolData: encodeBridgeProtocolData(finalToken),
        },
      },
      fees: { gas, bridge: [tokenAmountJson(destChain, bridgedDest, candidate.bridgeFee)] },
    },
    impactPercent: candidate.origin.impactPercent + destination.impactPercent,
    lossUsd: candidate.origin.lossUsd + destination.lossUsd,
  }
}

/** The token of `symbol` on `chain`: `token` itself when it already is that asset (keeps the native asset native). */
function bridgedToken(token: DeltaToken, chain: ChainVenue, symbol: string): DeltaToken | undefined {
  if (token.pooled.symbol === symbol) return token
  const twin = chain.tokenBySymbol(symbol)
  return twin ? resolveDeltaToken(chain, twin.address) : undefined
}

function betterReturn(side: 'SELL' | 'BUY', a: Candidate, b: Candidate): boolean {
  return side === 'SELL' ? a.destination.output > b.destination.output : a.originInput < b.originInput
}

/** Multiplies by 10^factor (a negative factor divides, rounding down). */
function scaleAmount(amount: bigint, factor: number): bigint {
  return factor >= 0 ? amount * 10n ** BigInt(factor) : amount / 10n ** BigInt(-factor)
}

function scaleAmountUp(amount: bigint, factor: number): bigint {
  return factor >= 0 ? amount * 10n ** BigInt(factor) : ceilDiv(amount, 10n ** BigInt(-factor))
}
