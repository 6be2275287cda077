import type { Clock } from '../../time/clock.js'
import { intentId } from './intent-id.js'
import type { Intent } from './intent-schema.js'
import { parseIntent, parseIntentContent } from './parse-intent.js'

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
  return parseIntent({ ...parsed, id: intentId({ content: parsed, key }), createdAt: clock.now() })
}
