// The public entry for strategy plugin authors: everything a strategy module needs, from one import.
//   import { defineStrategy, addressSchema, amountSchema } from 'deltaflow'

export {
  intentAddressSchema as addressSchema,
  intentAmountSchema as amountSchema,
  intentChainIdSchema as chainIdSchema,
  intentSideSchema as sideSchema,
} from './exec/intents/intent-fields.js'
export type { IntentContentInput } from './exec/intents/intent-schema.js'
export type { Quote, QuoteRequest, QuoteSource } from './feed/quote.js'
export { quoteAgeMs, quoteRequestKey } from './feed/quote.js'
export type { JournalFill } from './journal/order-events.js'
export type { JournalOrder } from './journal/orders.js'
export type { JournalRefund } from './journal/refunds.js'
export type {
  IntentRequest,
  StrategyContext,
  StrategyDefinition,
  StrategyIntentContent,
  StrategyOutput,
  StrategyState,
} from './strategy/define-strategy.js'
export { defineStrategy } from './strategy/define-strategy.js'
export type {
  BalanceRequest,
  BalancesEvent,
  FillEvent,
  IntentResultEvent,
  OrderUpdateEvent,
  RefundEvent,
  TimerEvent,
} from './strategy/strategy-events.js'
export type { Clock } from './time/clock.js'
