import type { Address } from 'viem'
import { z } from 'zod'
import { BaseError } from '../errors/base.js'
import type { QuoteRequest } from '../feed/quote.js'
import { type Candle, candlePriceScale } from './candle-csv.js'

// The model that turns a candle into quotes (src/backtest/README.md, "Quote sets from candles"). Everything is exact
// bigint arithmetic on rationals with one rounding at the end, against the trader: what the trader receives is
// rounded down, what the trader pays is rounded up.

const bpsSchema = (max: number) =>
  z
    .number()
    .min(0)
    .max(max)
    .refine((value) => Math.abs(value * 100 - Math.round(value * 100)) < 1e-9, { error: 'expected basis points with at most 2 decimals' })

const usdSchema = z.string().regex(/^\d+(\.\d{1,6})?$/, { error: 'expected a decimal USD amount with at most 6 decimals, such as 0.30' })

/** The model's parameters; every one has a default (`defaultCandleQuoteModel`). */
export const candleQuoteModelSchema = z.object({
  /** Price points per candle: `ohlc` four (open, both extremes, close), `close` one. */
  points: z.enum(['ohlc', 'close']).default('ohlc'),
  /** Full bid–ask spread of the Market, bps; each trade pays half of it. */
  spreadBps: bpsSchema(10_000).default(10),
  /** Depth of the constant-product-like book, quote units (USD) per side: impact(q) = q / (q + depthUsd). */
  depthUsd: z.number().int().positive().max(Number.MAX_SAFE_INTEGER).default(20_000_000),
  /** Gas estimate of a Market swap, gas units (the route's gasCost). */
  marketGasUnits: z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER).default(150_000),
  /** Gas cost of a Market swap, USD (the route's gasCostUSD), paid by the user on top of the amounts. */
  marketGasUsd: usdSchema.default('0.30'),
  /** Partner fee stated on Market routes (partnerFee), bps; the amounts are before it. */
  marketFeeBps: bpsSchema(200).default(1),
  /** How much better a Delta price is than the Market price of the same trade (before fees and gas), bps. */
  deltaImprovementBps: bpsSchema(5_000).default(5),
  /** Partner fee stated on Delta prices (partner.feePercent), bps; the amounts are before it. Delta has no user gas. */
  deltaFeeBps: bpsSchema(200).default(1),
  /** maxImpactReached is set on Market routes whose impact exceeds this, percent (the service's default maxImpact). */
  maxImpactPercent: z.number().positive().max(100).default(15),
})

export type CandleQuoteModel = z.output<typeof candleQuoteModelSchema>
export type CandleQuoteModelInput = z.input<typeof candleQuoteModelSchema>

export const defaultCandleQuoteModel: CandleQuoteModel = candleQuoteModelSchema.parse({})

export type PairToken = { symbol: string; address: Address; decimals: number }

/** The traded pair: the candles' price is `quote` per `base` (the candle's quote currency is taken at par with `quote`). */
export type CandlePair = { chainId: number; base: PairToken; quote: PairToken }

/** The fixed amount of a request, raw units of the base or of the quote token. */
export type QuoteSize = { token: 'base' | 'quote'; amount: bigint }

export type CandleQuoteSource = 'market' | 'delta'
export type Side = 'SELL' | 'BUY'

/** One price of the path a candle stands for, at a time inside the candle. */
export type PricePoint = { time: number; price: bigint }

/**
 * The intra-candle path. `ohlc`: open at the open time, then the two extremes, then the close, a quarter of the
 * interval apart; the extreme against the candle's direction comes first (a candle that closes at or above its open
 * visits its low before its high, a falling candle its high before its low). `close`: the close alone, at 3/4.
 */
export function candlePricePoints(candle: Candle, intervalMs: number, points: CandleQuoteModel['points']): PricePoint[] {
  const at = (quarter: number) => candle.openTime + Math.floor((quarter * intervalMs) / 4)
  if (points === 'close') return [{ time: at(3), price: candle.close }]
  const rising = candle.close >= candle.open
  return [
    { time: at(0), price: candle.open },
    { time: at(1), price: rising ? candle.low : candle.high },
    { time: at(2), price: rising ? candle.high : candle.low },
    { time: at(3), price: candle.close },
  ]
}

/**
 * The request of a size and side: the size's token is the fixed one, the source token for SELL and the destination
 * for BUY. Quote-sized: SELL spends `amount` of quote for base, BUY receives `amount` of quote for base. Base-sized:
 * SELL sells `amount` of base for quote, BUY buys `amount` of base with quote.
 */
export function candleQuoteRequest(pair: CandlePair, size: QuoteSize, side: Side, source: CandleQuoteSource): QuoteRequest {
  const fixed = pair[size.token].address
  const other = pair[size.token === 'base' ? 'quote' : 'base'].address
  return {
    source,
    chainId: pair.chainId,
    srcToken: side === 'SELL' ? fixed : other,
    destToken: side === 'SELL' ? other : fixed,
    amount: size.amount,
    side,
  }
}

/** A model price the amounts cannot follow (a factor at or below zero, an amount rounding to zero). Operational. */
export class CandleQuoteModelError extends BaseError {
  override name = 'CandleQuoteModelError' as const
}

/** An exact non-negative rational. */
type Ratio = { n: bigint; d: bigint }

const unit = 100_000_000n // fractions in 1e-8: 1 bps = 10_000

export type ModelledAmounts = {
  srcAmount: bigint
  destAmount: bigint
  /** The trade's price impact, impact(q) = q / (q + depth). */
  impact: Ratio
  /** True when the trader gives base and receives quote. */
  sellsBase: boolean
}

/**
 * The amounts of one request at one price (quote per base × 10^18). With mid = price, h = spreadBps / 2 / 10^4,
 * i = q / (q + depth) where q is the trade's size in quote units at mid, and k = deltaImprovementBps / 10^4 on Delta
 * (0 on Market), the trader's price per base is mid × (1 − h − i) × (1 + k) when selling base and
 * mid × (1 + h + i) × (1 − k) when buying base. The fixed side is the request's amount; the other side follows from
 * the price, rounded against the trader.
 */
export function modelQuoteAmounts(
  model: CandleQuoteModel,
  pair: CandlePair,
  request: Pick<QuoteRequest, 'srcToken' | 'amount' | 'side' | 'source'>,
  price: bigint,
): ModelledAmounts {
  const sellsBase = request.srcToken.toLowerCase() === pair.base.address.toLowerCase()
  // The fixed token is base when selling base with SELL, or buying base with BUY.
  const fixedBase = sellsBase === (request.side === 'SELL')
  const baseScale = 10n ** BigInt(pair.base.decimals)
  const quoteScale = 10n ** BigInt(pair.quote.decimals)
  // Quote raw units of one base raw unit at mid: price × quoteScale / (candlePriceScale × baseScale).
  const mid: Ratio = { n: price * quoteScale, d: candlePriceScale * baseScale }
  const q: Ratio = fixedBase ? { n: request.amount * mid.n, d: mid.d } : { n: request.amount, d: 1n }
  const depth = BigInt(model.depthUsd) * quoteScale
  const impact: Ratio = { n: q.n, d: q.n + depth * q.d }
  const half = BigInt(Math.round(model.spreadBps * 100)) * 50n
  const improvement = request.source === 'delta' ? BigInt(Math.round(model.deltaImprovementBps * 100)) * 100n : 0n
  // factor = (1 ∓ h ∓ i) × (1 ± k), as one ratio.
  const factor: Ratio = sellsBase
    ? { n: ((unit - half) * impact.d - unit * impact.n) * (unit + improvement), d: unit * impact.d * unit }
    : { n: ((unit + half) * impact.d + unit * impact.n) * (unit - improvement), d: unit * impact.d * unit }
  if (factor.n <= 0n) {
    throw new CandleQuoteModelError('the model prices this trade at or below zero (half-spread plus impact reach 100 %)', {
      details: { request: `${request.side} ${request.amount}`, spreadBps: model.spreadBps, depthUsd: model.depthUsd },
      hint: 'Lower the size or the spread, or raise the depth.',
      errorClass: 'operational',
    })
  }
  // Quote raw per base raw at the trader's price: mid × factor.
  const rate: Ratio = { n: mid.n * factor.n, d: mid.d * factor.d }
  const variable = fixedBase
    ? // base fixed: quote = base × rate; received (SELL of base) rounds down, paid (BUY of base) rounds up.
      roundAgainstTrader(request.amount * rate.n, rate.d, sellsBase)
    : // quote fixed: base = quote / rate; received (buying base with SELL) rounds down, paid (BUY of quote) rounds up.
      roundAgainstTrader(request.amount * rate.d, rate.n, !sellsBase)
  if (variable === 0n) {
    throw new CandleQuoteModelError('the modelled amount rounds to zero', {
      details: { request: `${request.side} ${request.amount}` },
      hint: 'Raise the size: it is below one raw unit of the other token at this price.',
      errorClass: 'operational',
    })
  }
  return request.side === 'SELL'
    ? { srcAmount: request.amount, destAmount: variable, impact, sellsBase }
    : { srcAmount: variable, destAmount: request.amount, impact, sellsBase }
}

/** Down when the trader receives the amount, up when the trader pays it. */
function roundAgainstTrader(numerator: bigint, denominator: bigint, received: boolean): bigint {
  return received ? numerator / denominator : (numerator + denominator - 1n) / denominator
}

/** The crosschain model: what the bridge takes and how long it says it takes. */
export const candleBridgeModelSchema = z.object({
  /** Share of the bridged amount the bridge keeps, bps; the rate is 1 − feeBps / 10^4 whatever the candle. */
  feeBps: bpsSchema(5_000).default(5),
  /** The route's estimated delivery time, seconds. */
  estimatedSeconds: z.number().int().positive().max(86_400).default(120),
})

export type CandleBridgeModel = z.output<typeof candleBridgeModelSchema>

/**
 * Crosschain Delta transfers of the pair's quote token (a stablecoin) between the pair's chain and `chainId`, quoted
 * both ways as SELLs at every price point.
 */
export type CandleBridge = CandleBridgeModel & {
  chainId: number
  /** The quote token on `chainId`: the same asset. */
  token: PairToken
  /** Raw units of the pair's quote token; the way back sells the same amounts in `token`'s decimals. */
  sizes: readonly bigint[]
}

/** The SELL requests of the bridge: every size from the pair's chain to the other, then every size back. */
export function candleBridgeRequests(pair: CandlePair, bridge: CandleBridge): QuoteRequest[] {
  const ends = [
    { chainId: pair.chainId, token: pair.quote },
    { chainId: bridge.chainId, token: bridge.token },
  ] as const
  return [ends, [ends[1], ends[0]] as const].flatMap(([from, to]) =>
    bridge.sizes.map(
      (size): QuoteRequest => ({
        source: 'delta',
        chainId: from.chainId,
        destChainId: to.chainId,
        srcToken: from.token.address,
        destToken: to.token.address,
        amount: scaleDecimals(size, from.token.decimals - pair.quote.decimals),
        side: 'SELL',
      }),
    ),
  )
}

export type BridgedAmounts = {
  /** What arrives on the destination chain, in its decimals, before the bridge fee. */
  arriving: bigint
  /** What the trader receives: arriving less the bridge fee, rounded down. */
  delivered: bigint
  /** arriving − delivered, kept by the bridge. */
  fee: bigint
}

/** A SELL of `amount` across the bridge at 1 − feeBps / 10^4 (scaled between the two tokens' decimals). */
export function modelBridgeAmounts(bridge: CandleBridgeModel, amount: bigint, srcDecimals: number, destDecimals: number): BridgedAmounts {
  const arriving = scaleDecimals(amount, destDecimals - srcDecimals)
  const delivered = (arriving * (unit - BigInt(Math.round(bridge.feeBps * 100)) * 100n)) / unit
  if (delivered === 0n) {
    throw new CandleQuoteModelError('the bridged amount rounds to zero', {
      details: { amount: amount.toString(), feeBps: bridge.feeBps },
      hint: 'Raise the bridge size or lower the bridge fee.',
      errorClass: 'operational',
    })
  }
  return { arriving, delivered, fee: arriving - delivered }
}

/** amount × 10^places; a negative `places` divides, rounding down. */
function scaleDecimals(amount: bigint, places: number): bigint {
  return places >= 0 ? amount * 10n ** BigInt(places) : amount / 10n ** BigInt(-places)
}

/** True when impact exceeds maxImpactPercent. */
export function exceedsMaxImpact(model: CandleQuoteModel, impact: Ratio): boolean {
  // impact.n / impact.d > percent / 100, with the percent in 1e-6.
  return impact.n * 100_000_000n > BigInt(Math.round(model.maxImpactPercent * 1_000_000)) * impact.d
}

/** USD of a raw amount of a pair token at `price`: the quote token at par, base at price. Six decimals, rounded down. */
export function usdOfAmount(pair: CandlePair, token: 'base' | 'quote', amount: bigint, price: bigint): string {
  if (token === 'quote') return formatDecimal(amount, pair.quote.decimals, 6)
  return formatDecimal((amount * price) / 10n ** BigInt(pair.base.decimals), 18, 6)
}

/** `value / 10^decimals` with `places` decimals, rounded down ("1234.500000"). */
export function formatDecimal(value: bigint, decimals: number, places: number): string {
  const scaled = places >= decimals ? value * 10n ** BigInt(places - decimals) : value / 10n ** BigInt(decimals - places)
  if (places === 0) return scaled.toString()
  const text = scaled.toString().padStart(places + 1, '0')
  return `${text.slice(0, -places)}.${text.slice(-places)}`
}
