import type { z } from 'zod'
import { recordedQuoteLineSchema } from '../feed/recorded-quote.js'
import type { ReplayCosts } from './replay-source.js'

/** The flat `gas` and `fees` fields of a recorded quote line (src/feed/recorded-quotes.md). */
export const recordedCostsSchema = recordedQuoteLineSchema.pick({ gas: true, fees: true })

/** The costs as written: `{ gas?, fees? }` of a line, amounts as decimal strings. */
export type RecordedCostsJson = z.input<typeof recordedCostsSchema>

/** Parsed costs (amounts as bigint) as a block hands them out. Frozen: blocks share them between quotes. */
export function toReplayCosts({ gas, fees }: z.output<typeof recordedCostsSchema>): ReplayCosts {
  const costs: ReplayCosts = {}
  if (gas?.usd !== undefined) costs.gasUsd = gas.usd
  if (gas?.wei !== undefined) costs.gasWei = gas.wei
  if (gas?.units !== undefined) costs.gasUnits = gas.units
  if (fees?.partnerPercent !== undefined) costs.partnerPercent = fees.partnerPercent
  if (fees?.bridge !== undefined) costs.bridge = Object.freeze(fees.bridge.map((fee) => Object.freeze({ ...fee })))
  if (fees?.destAmountAfterFee !== undefined) costs.destAmountAfterFee = fees.destAmountAfterFee
  return Object.freeze(costs)
}
