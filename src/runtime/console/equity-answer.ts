import { z } from 'zod'
import type { FlowRow } from '../../journal/console-queries.js'
import { tokenLabelSchema, unitsSchema } from './token-answer.js'

export const equityQuerySchema = z.object({
  strategy: z.string().min(1).optional(),
  /** The latest points of each series at most. */
  points: z.coerce.number().int().min(1).max(5_000).default(500),
})

const signedRaw = z.string().regex(/^-?\d+$/)

/**
 * GET /api/equity: the wallet's value over time, and the net token flows of the fills and refunds.
 *
 * `value`: the wallet's balances of the bot's tokens valued in the valuation token (ops.valuation) at the latest
 * prices the bot's quote feed has seen, sampled every `intervalMs` of the bot's clock (the latest points; older
 * ones thinned out). Tokens without a price yet are left out of a point and named in its `unpriced`. The wallet's,
 * whatever `strategy` says.
 *
 * `flows`: per chain and token, the cumulative net flow (received + refunded − spent) after each fill or refund, in
 * journal order, of `strategy` or of all.
 */
export const equityAnswerSchema = z.object({
  strategy: z.string().nullable(),
  value: z.object({
    token: tokenLabelSchema.nullable(),
    /** Why there are no points (no valuation token), else null. */
    reason: z.string().nullable(),
    intervalMs: z.number(),
    points: z.array(
      z.object({
        at: z.number(),
        value: unitsSchema,
        raw: signedRaw,
        /** Clock ms of the oldest price the point took (null: no price needed). */
        pricedAt: z.number().nullable(),
        /** Names of the tokens left out: no price seen yet. */
        unpriced: z.array(z.string()),
      }),
    ),
  }),
  flows: z.array(
    z.object({
      chainId: z.number().int(),
      token: z.string(),
      label: tokenLabelSchema,
      points: z.array(z.object({ at: z.number(), net: signedRaw, netUnits: unitsSchema })),
    }),
  ),
})

export type EquityAnswer = z.infer<typeof equityAnswerSchema>

/** A token's net flow after each fill or refund: raw units, in journal order. */
export type NetFlowSeries = { chainId: number; token: string; points: { at: number; net: bigint }[] }

/** The net flow series of the journal's fills and refunds (FlowRow order: journal order), the latest `points` of each. */
export function netFlowsOf(flows: readonly FlowRow[], strategy: string | undefined, points: number): NetFlowSeries[] {
  const series = new Map<string, { chainId: number; token: string; net: bigint; points: { at: number; net: bigint }[] }>()
  const move = (chainId: number, token: string, at: number, by: bigint) => {
    const key = `${chainId}:${token}`
    let entry = series.get(key)
    if (!entry) {
      entry = { chainId, token, net: 0n, points: [] }
      series.set(key, entry)
    }
    entry.net += by
    entry.points.push({ at, net: entry.net })
  }
  for (const flow of flows) {
    if (strategy !== undefined && flow.strategy !== strategy) continue
    if (flow.refundToken !== null) {
      move(flow.srcChain, flow.refundToken, flow.at, BigInt(flow.refundAmount ?? '0'))
      continue
    }
    move(flow.srcChain, flow.srcToken, flow.at, -BigInt(flow.spent))
    move(flow.destChain, flow.destToken, flow.at, BigInt(flow.received))
  }
  return [...series.values()]
    .sort((a, b) => a.chainId - b.chainId || a.token.localeCompare(b.token))
    .map(({ chainId, token, points: all }) => ({ chainId, token, points: all.slice(-points) }))
}
