import { formatUnits } from 'viem'
import type { DeltaPrice } from '../api/delta/delta-price-schema.js'
import type { MarketPriceRoute } from '../api/market/price-route-schema.js'
import { priceImpactPercent } from '../exec/executor/price-impact.js'
import type { ExecutionMode, ModeChoice, ModeFigures } from '../exec/mode/choose-mode.js'
import type { TradeToken } from './trade-tokens.js'

// What `deltaflow quote` reports for each mode, as data (its --json): the amounts, the unit price, the price impact
// against a small reference size, the amount net of gas and fees, and why a mode was chosen; and whether the chosen
// mode's impact passes the limit `deltaflow swap` applies. quote-text.ts writes it for a person.

/** A mode's answer: its quote (with why `swap` would not take it, if so), or why it has none. */
export type ModeQuote =
  | { delta: DeltaPrice; refused?: string | undefined }
  | { market: MarketPriceRoute; refused?: string | undefined }
  | { error: string }

export type QuoteFacts = {
  sell: TradeToken
  buy: TradeToken
  side: 'SELL' | 'BUY'
  /** Raw units of the fixed side. */
  amount: bigint
  /** The modes asked for, each quoted at `amount` (undefined: not asked). */
  quotes: { delta?: ModeQuote | undefined; market?: ModeQuote | undefined }
  /** The same modes quoted at `referenceAmount`; undefined when the amount is too small to divide. */
  reference: { amount: bigint; delta?: ModeQuote | undefined; market?: ModeQuote | undefined } | undefined
  /** The executor's choice, as `deltaflow swap` would make it. */
  choice: ModeChoice
  /** The service's own pick (its unified quote), when it was asked. */
  serviceChoice: ExecutionMode | undefined
  /** The limit of `deltaflow swap`: --max-impact, or the config's risk.maxPriceImpactPercent when lower. */
  impactLimitPercent: number
  /** --allow-impact: a quote above the limit is reported, not failed. */
  allowImpact: boolean
}

/** The units of the report's fields, stated once in the JSON document. */
const units = (sell: TradeToken, buy: TradeToken, side: 'SELL' | 'BUY') => ({
  unitPrice: side === 'SELL' ? `${buy.symbol} received per ${sell.symbol}` : `${sell.symbol} paid per ${buy.symbol}`,
  priceImpactPercent: 'percent (15 = 15 %)',
  partnerFeePercent: 'percent of the amount (0.01 = 0.01 % = 1 bp, not 1 %)',
  gasCostUSD: 'USD',
  amounts: 'whole tokens (srcAmount, destAmount and net: decimal strings)',
})

/**
 * The report as data (the JSON of `deltaflow quote --json`): per mode the amounts and detail it always had, plus
 * unitPrice, reference, priceImpactPercent, usdImpactPercent (the measure `swap` checks) and net; then the choice with
 * its reason, and the impact check.
 */
export function describeQuote(facts: QuoteFacts) {
  const { sell, buy } = facts
  const delta = facts.quotes.delta && describeMode(facts, 'delta', facts.quotes.delta)
  const market = facts.quotes.market && describeMode(facts, 'market', facts.quotes.market)
  const chosen = facts.choice.mode
  const chosenLine = chosen === 'delta' ? delta : chosen === 'market' ? market : undefined
  const impact = chosenLine ? worstImpact(chosenLine) : undefined
  const exceeded = impact !== undefined && impact > facts.impactLimitPercent
  // With no mode chosen, every quote above the limit is named: the user still sees what the price would be.
  const unchosenAboveLimit =
    chosen !== undefined
      ? []
      : (
          [
            ['delta', delta],
            ['market', market],
          ] as const
        ).flatMap(([mode, line]) => {
          const percent = line && worstImpact(line)
          return percent !== undefined && percent > facts.impactLimitPercent ? [{ mode, percent }] : []
        })
  return {
    sell: { chainId: sell.chainId, symbol: sell.symbol, address: sell.address },
    buy: { chainId: buy.chainId, symbol: buy.symbol, address: buy.address },
    side: facts.side,
    amount: formatUnits(facts.amount, facts.side === 'SELL' ? sell.decimals : buy.decimals),
    referenceAmount: facts.reference ? formatUnits(facts.reference.amount, facts.side === 'SELL' ? sell.decimals : buy.decimals) : null,
    ...(delta ? { delta } : {}),
    ...(market ? { market } : {}),
    chosen: chosen ?? null,
    choice: {
      mode: chosen ?? null,
      reason: facts.choice.reason,
      /** The reason in words, net amounts in token units. */
      why: explainChoice(facts.choice, facts.side === 'SELL' ? buy : sell),
      /** The executor's own sentence (raw units), as the journal records it for a swap. */
      explanation: facts.choice.explanation,
    },
    serviceChoice: facts.serviceChoice ?? null,
    impact: {
      limitPercent: facts.impactLimitPercent,
      /** The chosen mode's price impact: the larger of priceImpactPercent and usdImpactPercent. */
      chosenPercent: impact ?? null,
      exceeded,
      allowed: exceeded && facts.allowImpact,
      /** When no mode is chosen: each quoted mode whose impact is above the limit. */
      unchosenAboveLimit,
    },
    units: units(sell, buy, facts.side),
  }
}

export type QuoteDescription = ReturnType<typeof describeQuote>
type ModeLine = ReturnType<typeof describeMode>

function describeMode(facts: QuoteFacts, mode: ExecutionMode, quote: ModeQuote) {
  const { sell, buy, side } = facts
  const figures = facts.choice[mode]
  if ('error' in quote) return { error: quote.error }
  const { srcAmount, destAmount } = amountsOf(quote)
  const price = unitPrice(facts, srcAmount, destAmount)
  const reference = referenceOf(facts, mode)
  const impact = price !== undefined && reference?.price !== undefined ? impactPercent(side, price, reference.price) : undefined
  const variable = side === 'SELL' ? buy : sell
  const detail: Record<string, string> =
    'delta' in quote
      ? { partnerFeePercent: String(quote.delta.partner.feePercent), spender: quote.delta.spender }
      : {
          gasCostUSD: quote.market.gasCostUSD,
          partnerFeePercent: String(quote.market.partnerFee),
          spender: quote.market.tokenTransferProxy,
        }
  return {
    srcAmount: formatUnits(srcAmount, sell.decimals),
    destAmount: formatUnits(destAmount, buy.decimals),
    detail,
    /** Why `swap` would not take this quote, when it would not. */
    refused: quote.refused ?? null,
    unitPrice: price === undefined ? null : formatUnits(price, priceDecimals),
    reference: reference
      ? {
          mode: reference.mode,
          srcAmount: formatUnits(reference.srcAmount, sell.decimals),
          destAmount: formatUnits(reference.destAmount, buy.decimals),
          unitPrice: reference.price === undefined ? null : formatUnits(reference.price, priceDecimals),
        }
      : null,
    priceImpactPercent: impact ?? null,
    usdImpactPercent: priceImpactPercent(quote) ?? null,
    net: netOf(figures, variable, side, mode),
  }
}

/** The larger of the two impact measures of a quoted mode: against the reference size, and the USD values' loss. */
function worstImpact(line: ModeLine): number | undefined {
  if (line.error !== undefined) return undefined
  const measures = [line.priceImpactPercent, line.usdImpactPercent].filter((value): value is number => value !== null)
  return measures.length === 0 ? undefined : Math.max(...measures)
}

/**
 * The amount net of gas and fees, in whole tokens of the side that varies (what is received for SELL, paid for BUY),
 * as the mode choice counts it.
 */
function netOf(figures: ModeFigures, token: TradeToken, side: 'SELL' | 'BUY', mode: ExecutionMode) {
  if (figures.status !== 'quoted') return null
  return {
    /** Delta's agents pay the gas: it is in the quoted amount already, so `gas` is 0. */
    gasInPrice: mode === 'delta',
    symbol: token.symbol,
    /** SELL: received after the partner fee and gas; BUY: paid including them. */
    amount: formatUnits(figures.net, token.decimals),
    gross: formatUnits(figures.gross, token.decimals),
    partnerFee: formatUnits(figures.fee, token.decimals),
    gas: formatUnits(figures.gas, token.decimals),
    gasUnpriced: figures.gasUnpriced,
    side: side === 'SELL' ? 'received' : 'paid',
  }
}

function amountsOf(quote: { delta: DeltaPrice } | { market: MarketPriceRoute }): { srcAmount: bigint; destAmount: bigint } {
  if ('delta' in quote) return { srcAmount: quote.delta.route.origin.input.amount, destAmount: quote.delta.route.destination.output.amount }
  return { srcAmount: quote.market.srcAmount, destAmount: quote.market.destAmount }
}

/** The reference of a mode: its own quote at the reference size, else the other mode's (a mode may refuse a small size). */
function referenceOf(facts: QuoteFacts, mode: ExecutionMode) {
  const reference = facts.reference
  if (!reference) return undefined
  const other: ExecutionMode = mode === 'delta' ? 'market' : 'delta'
  for (const candidate of [mode, other]) {
    const quote = reference[candidate]
    if (!quote || 'error' in quote) continue
    const amounts = amountsOf(quote)
    return { mode: candidate, ...amounts, price: unitPrice(facts, amounts.srcAmount, amounts.destAmount) }
  }
  return undefined
}

/** Decimals of the scaled unit prices. */
const priceDecimals = 18

/**
 * Whole tokens of the side that varies per whole token of the fixed side (SELL: received per unit sold; BUY: paid per
 * unit bought), scaled by 10^18; undefined for a zero amount.
 */
function unitPrice(
  { side, sell, buy }: Pick<QuoteFacts, 'side' | 'sell' | 'buy'>,
  srcAmount: bigint,
  destAmount: bigint,
): bigint | undefined {
  const [variable, variableToken, fixed, fixedToken] =
    side === 'SELL' ? [destAmount, buy, srcAmount, sell] : [srcAmount, sell, destAmount, buy]
  if (fixed === 0n) return undefined
  return (variable * 10n ** BigInt(fixedToken.decimals + priceDecimals)) / (fixed * 10n ** BigInt(variableToken.decimals))
}

/** How much worse `price` is than `reference`, in percent: less received per unit sold, or more paid per unit bought. */
function impactPercent(side: 'SELL' | 'BUY', price: bigint, reference: bigint): number | undefined {
  if (reference === 0n) return undefined
  const worse = side === 'SELL' ? reference - price : price - reference
  return Number((worse * 1_000_000n) / reference) / 10_000
}

/** Delta or Market, as the reports write them. */
export const modeName = (mode: ExecutionMode): string => (mode === 'delta' ? 'Delta' : 'Market')

/** Why the choice fell as it did, in words, with the net amounts in whole tokens of the side that varies. */
function explainChoice(choice: ModeChoice, variable: TradeToken): string {
  const whyOf = (figures: ModeFigures) => (figures.status === 'quoted' ? 'quoted' : `${figures.status}: ${figures.why}`)
  const netOfMode = (mode: ExecutionMode) => {
    const figures = choice[mode]
    return figures.status === 'quoted' ? `${formatUnits(figures.net, variable.decimals)} ${variable.symbol}` : 'n/a'
  }
  const nets = `net ${choice.side === 'SELL' ? 'received' : 'paid'}: Delta ${netOfMode('delta')}, Market ${netOfMode('market')}`
  const preferred = choice.preference.mode
  const other: ExecutionMode = preferred === 'delta' ? 'market' : 'delta'
  const margin = `${choice.preference.marginBps} bps (executor.preferMarginBps)`
  switch (choice.reason) {
    case 'override':
      return `--mode ${choice.override} asks for it`
    case 'override-unavailable': {
      const mode = choice.override ?? preferred
      return `--mode ${mode} asks for it, but ${modeName(mode)} is ${whyOf(choice[mode])}`
    }
    case 'only-delta':
      return `Market is ${whyOf(choice.market)}`
    case 'only-market':
      return `Delta is ${whyOf(choice.delta)}`
    case 'delta-better':
    case 'market-better': {
      const chosen = choice.reason === 'delta-better' ? 'delta' : 'market'
      const better = choice.side === 'SELL' ? 'gives more' : 'costs less'
      if (chosen === preferred) return `${modeName(chosen)} ${better} after gas and fees (${nets})`
      const bps = Math.abs(choice.marketAdvantageBps ?? 0)
      return `${modeName(chosen)} beats the preferred ${modeName(preferred)} (executor.preferMode) by ${bps} bps after gas and fees, more than the margin of ${margin} (${nets})`
    }
    case 'preferred-within-margin':
      return `${modeName(preferred)} is preferred (executor.preferMode) and ${modeName(other)} is not better by more than ${margin} (${nets})`
    case 'none-available':
      return `Delta is ${whyOf(choice.delta)}; Market is ${whyOf(choice.market)}`
    default:
      return choice.explanation
  }
}
