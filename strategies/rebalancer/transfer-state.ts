import { z } from 'zod'
import { addressSchema, intentId, parseIntentContent, type StrategyState } from '../../src/index.js'

// What the rebalancer keeps in its journal state: the one transfer in flight (with the exact intent asked for, so a
// restart can ask again for the same intent id), the key generation, and what became of the last transfer.

const transferIntentSchema = z.strictObject({
  kind: z.literal('crosschain'),
  chainId: z.number().int(),
  destChainId: z.number().int(),
  srcToken: addressSchema,
  destToken: addressSchema,
  /** Raw units of srcToken, decimal string. */
  amount: z.string().regex(/^\d+$/),
  side: z.literal('SELL'),
  maxSlippageBps: z.number(),
  maxPriceImpactPercent: z.number(),
})

export type TransferIntent = z.output<typeof transferIntentSchema>

export const transferSchema = z.strictObject({
  /** The intent key, `transfer-<generation>`. */
  key: z.string(),
  intentId: z.string(),
  intent: transferIntentSchema,
  /** Clock ms when it was planned. */
  plannedAt: z.number(),
  /** Set by the first update of its order: from then on only a final status ends the transfer. */
  orderId: z.string().nullable(),
  status: z.string().nullable(),
})

export type Transfer = z.output<typeof transferSchema>

export const finishedTransferSchema = z.strictObject({
  key: z.string(),
  orderId: z.string(),
  status: z.string(),
  fromChainId: z.number().int(),
  toChainId: z.number().int(),
  amount: z.string(),
  finishedAt: z.number(),
})

export type FinishedTransfer = z.output<typeof finishedTransferSchema>

export const failedTransferSchema = z.strictObject({
  key: z.string(),
  intentId: z.string(),
  /** failed (an error on the way: a 5xx after the retries, an unreadable answer, an RPC fault) or refused (a risk limit). */
  status: z.enum(['failed', 'refused']),
  reason: z.string(),
  /** Clock ms when the strategy heard of it. */
  failedAt: z.number(),
  /** Transfers in a row that failed so: 1 for the first since a transfer got an order. */
  inARow: z.number().int().min(1),
})

export type FailedTransfer = z.output<typeof failedTransferSchema>

/**
 * Clock ms to wait after the `inARow`-th failed transfer in a row before planning again: `retryMs`, doubled with each
 * failure in a row, never above `placementTimeoutMs` (the longest a transfer that never appears holds the strategy).
 */
export function retryDelayMs(config: { retryMs: number; placementTimeoutMs: number }, inARow: number): number {
  const doubled = config.retryMs * 2 ** Math.min(inARow - 1, 30)
  return Math.min(doubled, Math.max(config.retryMs, config.placementTimeoutMs))
}

export const stateKeys = {
  /** The transfer in flight (absent when none). */
  transfer: 'transfer',
  /** The last key generation used: every planned transfer takes the next, so a re-plan after a refund is a new intent. */
  generation: 'generation',
  /** The last transfer that reached a final status. */
  lastTransfer: 'lastTransfer',
  /**
   * The last transfer whose intent failed or was refused without an order, with the count of such failures in a row
   * (cleared once a transfer gets an order): nothing is planned for retryDelayMs after it.
   */
  lastFailure: 'lastFailure',
  /** Bridge refunds heard of, over the strategy's life. */
  refunds: 'refunds',
} as const

export function readTransfer(state: StrategyState): Transfer | undefined {
  return state.get(stateKeys.transfer, transferSchema)
}

export function nextGeneration(state: StrategyState): number {
  const generation = (state.get(stateKeys.generation, z.number().int().nonnegative()) ?? 0) + 1
  state.set(stateKeys.generation, generation)
  return generation
}

/** The id the runtime gives `intent` under `key` (createIntent hashes the parsed content), to recognise its order. */
export function transferIntentId(strategy: string, key: string, intent: TransferIntent): string {
  return intentId({ content: parseIntentContent({ ...intent, strategy }), key })
}
