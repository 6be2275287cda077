import { GasCostExceedsTradeAmountError } from '../../api/delta/delta-errors.js'
import { ModeUnavailableError } from '../../chain/spender.js'
import { DeltaFallbackError } from './delta-fallback.js'
import {
  type DeltaQuoteFields,
  type GasPricing,
  type MarketRouteFields,
  type NetAmount,
  netDeltaAmount,
  netMarketAmount,
  type Side,
} from './net-amounts.js'

export type ExecutionMode = 'delta' | 'market'

/** Which mode wins a near tie: the other one must be better by more than marginBps. */
export type ModePreference = { mode: ExecutionMode; marginBps: number }

export type ChooseModeParameters = GasPricing & {
  side: Side
  /** Undefined when Delta was not quoted (not available on the chain); `error` when pricing refused it. */
  delta?: { price: DeltaQuoteFields } | { error: unknown } | undefined
  /** Undefined when Market was not quoted (crosschain, or not asked); `error` when pricing refused it. */
  market?: { route: MarketRouteFields } | { error: unknown } | undefined
  preference: ModePreference
  /** The intent's own choice (`mode: 'delta' | 'market'`): taken when quoted, never replaced by the other mode. */
  override?: ExecutionMode | undefined
}

export type ModeFigures = ({ status: 'quoted' } & NetAmount) | { status: 'unavailable'; why: string } | { status: 'refused'; why: string }

export type ModeChoiceReason =
  | 'override'
  | 'override-unavailable'
  | 'only-delta'
  | 'only-market'
  | 'delta-better'
  | 'market-better'
  | 'preferred-within-margin'
  | 'none-available'

/** The decision and its numbers: plain data for the journal. */
export type ModeChoice = {
  mode: ExecutionMode | undefined
  reason: ModeChoiceReason
  /** One sentence with the numbers, for logs. */
  explanation: string
  side: Side
  delta: ModeFigures
  market: ModeFigures
  /** How much better Market's net amount is than Delta's, in bps of Delta's (negative: Delta is better); both quoted only. */
  marketAdvantageBps: number | undefined
  preference: ModePreference
  override: ExecutionMode | undefined
}

/**
 * Chooses Delta or Market for a same-chain trade by comparing net amounts: for SELL the larger net output wins, for
 * BUY the smaller net input. The preferred mode keeps the trade unless the other is better by more than marginBps.
 * A per-intent override is obeyed (or the trade has no mode, when that mode has no quote).
 */
export function chooseMode({ side, delta, market, preference, override, gasPriceWei, nativeUsd }: ChooseModeParameters): ModeChoice {
  const figures = {
    delta: deltaFigures(delta, side),
    market: marketFigures(market, side, { gasPriceWei, nativeUsd }),
  }
  const advantage =
    figures.delta.status === 'quoted' && figures.market.status === 'quoted'
      ? advantageBps(side, figures.delta.net, figures.market.net)
      : undefined
  const decide = (mode: ExecutionMode | undefined, reason: ModeChoiceReason, explanation: string): ModeChoice => ({
    mode,
    reason,
    explanation,
    side,
    ...figures,
    marketAdvantageBps: advantage,
    preference,
    override,
  })

  if (override !== undefined) {
    const chosen = figures[override]
    if (chosen.status === 'quoted') return decide(override, 'override', `the intent asks for ${label(override)}`)
    return decide(undefined, 'override-unavailable', `the intent asks for ${label(override)}, which is ${chosen.status}: ${chosen.why}`)
  }
  if (figures.delta.status !== 'quoted' || figures.market.status !== 'quoted') {
    if (figures.delta.status === 'quoted')
      return decide('delta', 'only-delta', `Market is ${figures.market.status}: ${whyOf(figures.market)}`)
    if (figures.market.status === 'quoted')
      return decide('market', 'only-market', `Delta is ${figures.delta.status}: ${whyOf(figures.delta)}`)
    return decide(
      undefined,
      'none-available',
      `Delta is ${figures.delta.status} (${whyOf(figures.delta)}); Market is ${figures.market.status} (${whyOf(figures.market)})`,
    )
  }

  const preferred = preference.mode
  const challenger: ExecutionMode = preferred === 'delta' ? 'market' : 'delta'
  const nets = { delta: figures.delta.net, market: figures.market.net }
  const preferredNet = nets[preferred]
  const challengerNet = nets[challenger]
  const amounts = `net ${side === 'SELL' ? 'output' : 'input'} Delta ${figures.delta.net}, Market ${figures.market.net} (Market ${formatBps(advantage)} bps vs Delta)`
  if (beats(side, challengerNet, preferredNet, preference.marginBps)) {
    return decide(
      challenger,
      `${challenger}-better`,
      `${label(challenger)} beats preferred ${label(preferred)} by more than ${preference.marginBps} bps: ${amounts}`,
    )
  }
  if (beats(side, preferredNet, challengerNet, 0))
    return decide(preferred, `${preferred}-better`, `${label(preferred)} is better: ${amounts}`)
  return decide(
    preferred,
    'preferred-within-margin',
    `${label(challenger)} is not better by more than ${preference.marginBps} bps: ${amounts}`,
  )
}

/** Whether `candidate` is better than `reference` by more than marginBps of `reference` (exact, no rounding). */
function beats(side: Side, candidate: bigint, reference: bigint, marginBps: number): boolean {
  const margin = BigInt(Math.max(0, Math.ceil(marginBps * 100)))
  const gain = side === 'SELL' ? candidate - reference : reference - candidate
  return gain * 1_000_000n > margin * reference
}

function advantageBps(side: Side, deltaNet: bigint, marketNet: bigint): number | undefined {
  if (deltaNet === 0n) return undefined
  const gain = side === 'SELL' ? marketNet - deltaNet : deltaNet - marketNet
  return Number((gain * 1_000_000n) / deltaNet) / 100
}

function deltaFigures(delta: ChooseModeParameters['delta'], side: Side): ModeFigures {
  if (delta === undefined) return { status: 'unavailable', why: 'no Delta quote (Delta is not available on this chain)' }
  if ('error' in delta) {
    // The chain has no Delta, or the service says Delta cannot take this trade (its gas exceeds the amount, or the
    // unified quote fell back to Market): Delta is not available here, rather than refusing a request to change.
    if (
      delta.error instanceof ModeUnavailableError ||
      delta.error instanceof GasCostExceedsTradeAmountError ||
      delta.error instanceof DeltaFallbackError
    ) {
      return { status: 'unavailable', why: delta.error.shortMessage }
    }
    return { status: 'refused', why: errorText(delta.error) }
  }
  return { status: 'quoted', ...netDeltaAmount(delta.price, side) }
}

function marketFigures(market: ChooseModeParameters['market'], side: Side, pricing: GasPricing): ModeFigures {
  if (market === undefined) return { status: 'unavailable', why: 'no Market quote (crosschain, or not available on this chain)' }
  if ('error' in market) {
    if (market.error instanceof ModeUnavailableError) return { status: 'unavailable', why: market.error.shortMessage }
    return { status: 'refused', why: errorText(market.error) }
  }
  if (market.route.maxImpactReached === true)
    return { status: 'refused', why: 'the route reports maxImpactReached (price impact above maxImpact)' }
  return { status: 'quoted', ...netMarketAmount(market.route, side, pricing) }
}

function whyOf(figures: ModeFigures): string {
  return figures.status === 'quoted' ? 'quoted' : figures.why
}

function errorText(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message.split('\n')[0]}`
  return String(error)
}

function label(mode: ExecutionMode): string {
  return mode === 'delta' ? 'Delta' : 'Market'
}

function formatBps(bps: number | undefined): string {
  if (bps === undefined) return 'n/a'
  return bps > 0 ? `+${bps}` : `${bps}`
}
