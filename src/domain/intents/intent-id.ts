import { createHash } from 'node:crypto'
import type { IntentContent } from './intent-schema.js'

export type IntentIdParameters = {
  /** The parsed content (parseIntentContent): bigint amounts, checksummed addresses, defaults applied. */
  content: IntentContent
  /**
   * Chosen by the strategy to tell apart intents with the same content that are meant to be distinct, e.g. the
   * rebalance period (`2026-11-21`) or a signal id. The same key and content after a restart give the same id.
   */
  key: string
}

/**
 * A deterministic intent id: the first 32 hex digits (128 bits) of sha256 over `deltaflow-intent-v1`, the strategy,
 * the key and the canonical JSON of the content. It covers every field of the content — kind, chains, tokens,
 * amounts, side, mode, limits, timing, guards, ids to cancel — and the strategy; not `createdAt` (re-emitting after a
 * restart keeps the id) nor `id` itself. Canonical JSON: keys sorted, bigint as decimal strings, absent optionals omitted.
 * Inside a handler, `context.intentIdOf({ key, intent })` gives the same id without parsing by hand.
 *
 * @example
 * const content = parseIntentContent({ strategy: 'rebalance', kind: 'crosschain', ...transfer })
 * const id = intentId({ content, key: `transfer-${generation}` })
 */
export function intentId({ content, key }: IntentIdParameters): string {
  const preimage = ['deltaflow-intent-v1', content.strategy, key, canonicalJson(content)].join('\n')
  return createHash('sha256').update(preimage).digest('hex').slice(0, 32)
}

/** JSON with sorted keys and bigint as decimal strings; `undefined` members are dropped. */
export function canonicalJson(value: unknown): string {
  if (typeof value === 'bigint') return JSON.stringify(value.toString())
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`
  if (typeof value === 'object' && value !== null) {
    const members = Object.entries(value)
      .filter(([, inner]) => inner !== undefined)
      .sort(([left], [right]) => (left < right ? -1 : left > right ? 1 : 0))
      .map(([name, inner]) => `${JSON.stringify(name)}:${canonicalJson(inner)}`)
    return `{${members.join(',')}}`
  }
  return JSON.stringify(value)
}
