import { z } from 'zod'
import type { FlowRow } from '../../journal/console-queries.js'

export const equityQuerySchema = z.object({
  strategy: z.string().min(1).optional(),
  /** The latest points of each series at most. */
  points: z.coerce.number().int().min(1).max(5_000).default(500),
})

/**
 * GET /api/equity: per chain and token, the cumulative net flow of the fills and refunds (received + refunded − spent,
 * raw units) after each one, in journal order. No price is assumed: a series per token, the bot's equity in kind.
 */
export const equityAnswerSchema = z.object({
  strategy: z.string().nullable(),
  series: z.array(
    z.object({
      chainId: z.number().int(),
      token: z.string(),
      points: z.array(z.object({ at: z.number(), net: z.string().regex(/^-?\d+$/) })),
    }),
  ),
})

export type EquityAnswer = z.infer<typeof equityAnswerSchema>

/** The series of GET /api/equity from the journal's fills and refunds (FlowRow order: journal order). */
export function equityOf(flows: readonly FlowRow[], strategy: string | undefined, points: number): EquityAnswer {
  const series = new Map<string, { chainId: number; token: string; net: bigint; points: { at: number; net: string }[] }>()
  const move = (chainId: number, token: string, at: number, by: bigint) => {
    const key = `${chainId}:${token}`
    let entry = series.get(key)
    if (!entry) {
      entry = { chainId, token, net: 0n, points: [] }
      series.set(key, entry)
    }
    entry.net += by
    entry.points.push({ at, net: entry.net.toString() })
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
  return {
    strategy: strategy ?? null,
    series: [...series.values()]
      .sort((a, b) => a.chainId - b.chainId || a.token.localeCompare(b.token))
      .map(({ chainId, token, points: all }) => ({ chainId, token, points: all.slice(-points) })),
  }
}
