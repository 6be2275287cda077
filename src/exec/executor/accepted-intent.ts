import type { Intent } from '../../domain/intents/intent-schema.js'
import type { RecordIntentParameters } from '../../journal/intents.js'
import { intentSpend, type RiskQuote } from '../risk/intent-spend.js'

/** The journal record of an intent the risk limits accepted: what it commits of its source token, and its mode choice. */
export function acceptedIntentRecord(
  intent: Exclude<Intent, { kind: 'cancel' }>,
  quote: RiskQuote | undefined,
  modeChoice: RecordIntentParameters['modeChoice'],
): RecordIntentParameters {
  const spend = intentSpend(intent, quote)
  return {
    id: intent.id,
    strategy: intent.strategy,
    kind: intent.kind,
    intent,
    spend: spend && 'amount' in spend ? { token: spend.token, amount: spend.amount } : undefined,
    modeChoice,
  }
}
