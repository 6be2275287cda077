import { z } from 'zod'

const bps = z.number().min(0).max(10_000)
const seconds = z.number().min(0)

/** ideal: fixed figures (the quote, a fixed improvement and Market slippage); realistic: seeded auctions and impact. */
export const fillModelNames = ['ideal', 'realistic'] as const

export type FillModelName = (typeof fillModelNames)[number]

const deltaSchema = z
  .object({
    /** Seconds from an order (or a TWAP slice becoming due) to its settlement. */
    auctionSeconds: seconds.default(30),
    /**
     * Agents' improvement on the quote at settlement, in bps of the output (0: exactly the quote). ideal: every
     * settlement's; realistic: the mean of the drawn outcome.
     */
    improvementBps: bps.default(0),
    /** realistic: standard deviation of a settlement's outcome around the quote, in bps (each settlement its own draw). */
    auctionStdDevBps: z.number().min(0).max(1_000).default(3),
    /** realistic: how far the recorded price must pass a LIMIT order's price before an agent fills it, in bps. */
    limitMarginBps: bps.default(5),
  })
  .strict()

const marketSchema = z
  .object({
    /** ideal: adverse move between the quote and the block: the output (SELL) shrinks, the input (BUY) grows by it. */
    slippageBps: bps.default(5),
    /** Gas in USD of a swap when the recorded quote states none. */
    gasUsd: z.number().min(0).default(0),
    /**
     * realistic: share of the trade's size impact (its recorded price against the smallest recorded size's) that the
     * block adds against it.
     */
    impactShare: z.number().min(0).max(10).default(1),
    /** realistic: standard deviation of the price's move between the quote and the block, in bps (either way). */
    driftStdDevBps: z.number().min(0).max(1_000).default(5),
  })
  .strict()

const otcSchema = z
  .object({
    /** Gas in USD of cancelling an order on chain. */
    cancelGasUsd: z.number().min(0).default(0),
  })
  .strict()

const crosschainSchema = z
  .object({
    /** Seconds from the source leg to delivery on the destination chain. */
    bridgeSeconds: seconds.default(120),
    /** Chance that a bridge fails and the source amount is refunded (seeded, so a run repeats). */
    refundProbability: z.number().min(0).max(1).default(0),
    /** Seconds from a failed bridge to the refund. */
    refundSeconds: seconds.default(600),
  })
  .strict()

const feesSchema = z
  .object({
    /** Charged on every fill's output, on top of what the recorded quotes already price in. */
    partnerBps: bps.default(0),
    protocolBps: bps.default(0),
  })
  .strict()

/**
 * How the simulated venue fills orders (src/backtest/README.md, "Fill model"). Every figure has a default; a config's
 * `backtest.fill` overrides any of them. Figures marked ideal or realistic count under that model only.
 */
export const fillModelSchema = z
  .object({
    model: z
      .enum(fillModelNames, { error: (issue) => `expected ideal or realistic, received ${JSON.stringify(issue.input)}` })
      .default('realistic'),
    /** A recorded quote older than this does not price anything: the pair counts as unquoted (`No route`). */
    maxQuoteAgeSeconds: seconds.default(900),
    delta: deltaSchema.default(deltaSchema.parse({})),
    market: marketSchema.default(marketSchema.parse({})),
    otc: otcSchema.default(otcSchema.parse({})),
    crosschain: crosschainSchema.default(crosschainSchema.parse({})),
    fees: feesSchema.default(feesSchema.parse({})),
  })
  .strict()

export type FillModel = z.output<typeof fillModelSchema>

export const defaultFillModel: FillModel = fillModelSchema.parse({})

/** Output after the model's partner and protocol fees (rounded down: the trader receives less). */
export function afterFees(model: FillModel, amount: bigint): bigint {
  const feeBps = BigInt(Math.round((model.fees.partnerBps + model.fees.protocolBps) * 100))
  return (amount * (1_000_000n - feeBps)) / 1_000_000n
}

/** The fee part of an output, the complement of afterFees. */
export function feeOf(model: FillModel, amount: bigint): bigint {
  return amount - afterFees(model, amount)
}
