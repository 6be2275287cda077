import type { Clock } from '../../time/clock.js'
import { unixMillisecondsSchema } from './intent-fields.js'
import { intentId } from './intent-id.js'
import type { Intent } from './intent-schema.js'
import { markCheckedIntent, parseIntent, parseIntentContent } from './parse-intent.js'

export type CreateIntentParameters = {
  /** What the strategy asks for, without `id` and `createdAt`; validated here. */
  content: unknown
  /** See intentId: distinguishes intents of identical content that are meant to be distinct. */
  key: string
  clock: Clock
}

/**
 * Validates a strategy's intent and stamps it with its deterministic id and the clock's time.
 * Throws InvalidIntentError naming the bad fields and the strategy.
 *
 * @example
 * const intent = createIntent({
 *   clock,
 *   key: 'rebalance-2026-11-21',
 *   content: { strategy: 'rebalance', kind: 'swap', chainId: 1, srcToken: usdc, destToken: weth, amount: '1000000',
 *     side: 'SELL', maxSlippageBps: 50, maxPriceImpactPercent: 1 },
 * })
 */
export function createIntent({ content, key, clock }: CreateIntentParameters): Intent {
  const parsed = parseIntentContent(content)
  const id = intentId({ content: parsed, key })
  const createdAt = clock.now()
  // The content passed intentSchema's own field schemas and rules; the id is 32 hex digits. Only the clock's time is
  // left to check: a bad one goes through the whole schema, which names it.
  if (!unixMillisecondsSchema.safeParse(createdAt).success) return markCheckedIntent(parseIntent({ ...parsed, id, createdAt }))
  // The keys in intentSchema's order: the header (strategy, id, createdAt), then the content's. Frozen and marked as
  // checked: the executor's parseIntent takes it as it is.
  return markCheckedIntent(Object.assign({ strategy: parsed.strategy, id, createdAt }, parsed))
}
