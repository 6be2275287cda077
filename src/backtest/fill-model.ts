import { z } from 'zod'

const bps = z.number().min(0).max(10_000)
const seconds = z.number().min(0)

/**
 * How the simulated venue fills orders (src/backtest/README.md, "Fill model"). Every figure has a default; a config's
 * `backtest.fillModel` overrides any of them.
 */
export const fillModelSchema = z
  .object({
    /** A recorded quote older than this does not price anything: the pair counts as unquoted (`No route`). */
    maxQuoteAgeSeconds: seconds.default(900),
    delta: z
      .object({
        /** Seconds from an order (or a TWAP slice becoming due) to its settlement. */
        auctionSeconds: seconds.default(30),
        /** Agents' improvement on the quote at settlement, in bps of the output (0: exactly the quote). */
        improvementBps: bps.default(0),
      })
      .strict()
      .default({ auctionSeconds: 30, improvementBps: 0 }),
    market: z
      .object({
        /** Adverse move between the quote and the block: the output (SELL) shrinks, the input (BUY) grows by it. */
        slippageBps: bps.default(5),
        /** Gas in USD of a swap when the recorded quote states none. */
        gasUsd: z.number().min(0).default(0),
      })
      .strict()
      .default({ slippageBps: 5, gasUsd: 0 }),
    otc: z
      .object({
        /** Gas in USD of cancelling an order on chain. */
        cancelGasUsd: z.number().min(0).default(0),
      })
      .strict()
      .default({ cancelGasUsd: 0 }),
    crosschain: z
      .object({
        /** Seconds from the source leg to delivery on the destination chain. */
        bridgeSeconds: seconds.default(120),
        /** Chance that a bridge fails and the source amount is refunded (seeded, so a run repeats). */
        refundProbability: z.number().min(0).max(1).default(0),
        /** Seconds from a failed bridge to the refund. */
        refundSeconds: seconds.default(600),
      })
      .strict()
      .default({ bridgeSeconds: 120, refundProbability: 0, refundSeconds: 600 }),
    fees: z
      .object({
        /** Charged on every fill's output, on top of what the recorded quotes already price in. */
        partnerBps: bps.default(0),
        protocolBps: bps.default(0),
      })
      .strict()
      .default({ partnerBps: 0, protocolBps: 0 }),
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
