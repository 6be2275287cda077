// deltaflow's plugin contract: everything a strategy module (or a maker strategy module) needs, from one import.
//
//   import { defineStrategy, addressSchema, amountSchema, chainIdSchema } from 'deltaflow'
//
// The built-in strategies in strategies/ import only this entry: what they can do, a plugin can do. The contract is
// versioned by `apiVersion` (see strategyApiVersion): within a version, names and fields are only ever added.

// --- Intents: the kinds a strategy may ask for, their fields, and their ids ---
export { createIntent } from './domain/intents/create-intent.js'
export {
  integerAtLeast,
  intentAddressSchema,
  // The names plugins have used since the first README; the intent field schemas under shorter names.
  intentAddressSchema as addressSchema,
  intentAmountSchema,
  intentAmountSchema as amountSchema,
  intentChainIdSchema,
  intentChainIdSchema as chainIdSchema,
  intentSideSchema,
  intentSideSchema as sideSchema,
  priceImpactPercentSchema,
  slippageBpsSchema,
  unixMillisecondsSchema,
  unixSecondsSchema,
} from './domain/intents/intent-fields.js'
export { canonicalJson, intentId } from './domain/intents/intent-id.js'
export type {
  Intent,
  IntentContent,
  IntentContentInput,
  IntentInput,
  IntentKind,
} from './domain/intents/intent-schema.js'
export { intentContentSchema, intentKinds, intentSchema } from './domain/intents/intent-schema.js'
export { type IntentProblem, InvalidIntentError, parseIntent, parseIntentContent } from './domain/intents/parse-intent.js'
export {
  finalStatusesByMode,
  isFinalStatus,
  isStatusOfMode,
  type OrderMode,
  type OrderStatus,
  orderModes,
  orderStatusSchema,
  signedStatus,
  statusesByMode,
} from './domain/order-status.js'
// --- Orders: statuses, and the views of orders, fills, refunds and intent results that events carry ---
export type { FillView, IntentResult, OrderView, RefundView } from './domain/order-views.js'
export { describeReceived } from './domain/wire-fields.js'
export { BaseError } from './errors/base.js'
// --- Quotes ---
export type { Quote, QuoteRequest, QuoteSource } from './feed/quote.js'
export { quoteAgeMs, quoteRequestKey } from './feed/quote.js'
export type { Logger } from './log/logger.js'
// --- Maker strategies (`deltaflow maker`) ---
export {
  defineMakerStrategy,
  type ExactPrice,
  type MakerBalance,
  type MakerBalanceRequest,
  type MakerChainOffer,
  type MakerFirmQuote,
  type MakerQuoteParameters,
  type MakerStrategyDefinition,
  type ReferencePrice,
  type ReferenceRequest,
} from './maker/maker-strategy.js'
export { makerStrategyApiVersion } from './maker/runtime/check-maker-strategy.js'
export {
  averagePrice,
  comparePrices,
  decimalToRaw,
  exactPrice,
  formatScaled,
  priceFromAmounts,
  priceFromDecimal,
  priceToNumber,
  roundPrice,
  shiftPrice,
} from './maker/runtime/exact-price.js'
export { nativeTokenPlaceholder } from './protocol/addresses.js'
export type { MakerPair, MakerToken } from './protocol/maker-wire.js'
export type { PriceGrid, PriceLevel } from './protocol/price-grid.js'
// --- Strategies: the definition, what handlers receive, what they return ---
export {
  strategyApiVersion,
  strategyNamePattern,
  supportedStrategyApiVersions,
} from './strategy/check-strategy-definition.js'
export type {
  IntentRequest,
  StrategyContext,
  StrategyDefinition,
  StrategyIntentContent,
  StrategyOutput,
  StrategyState,
} from './strategy/define-strategy.js'
export { defineStrategy } from './strategy/define-strategy.js'
export type { DeepReadonly } from './strategy/frozen-copy.js'
export { StrategyConfigError, StrategyError, StrategyLoadError } from './strategy/strategy-errors.js'
export type {
  BalanceRequest,
  BalancesEvent,
  FillEvent,
  IntentResultEvent,
  OrderUpdateEvent,
  RefundEvent,
  TimerEvent,
} from './strategy/strategy-events.js'
export {
  type CreateStrategyHarnessParameters,
  createStrategyHarness,
  type HarnessOrder,
  type HarnessQuote,
  type StrategyHarness,
} from './strategy/strategy-harness.js'
// --- Time, logs, errors ---
export type { Clock } from './time/clock.js'
