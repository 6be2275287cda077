import type { Intent } from '../../domain/intents/intent-schema.js'
import type { JournalOrder } from '../../journal/orders.js'
import { type CancelOutcome, cancelOrders } from './cancel-orders.js'
import { type DeltaOrderPlan, executeDeltaOrder } from './delta-order-flow.js'
import type { ExecutorContext } from './executor-context.js'
import { executeMarketOrder, type MarketOrderPlan } from './market-order-flow.js'
import { executeOtcOrder } from './otc-order-flow.js'
import { type RecoveryOutcome, recoverInFlightOrders, recoverOrder } from './recover-orders.js'

/**
 * Where the executor's orders go once an intent is validated, risk-checked, priced and its mode chosen: the venue side
 * of execution. Live, that is approvals, signing, the API and the chains; a backtest puts a simulated venue here and
 * keeps everything before it (the same intent validation, risk limits, pricing and mode choice).
 */
export type OrderPlacement = {
  placeDelta: (context: ExecutorContext, plan: DeltaOrderPlan) => Promise<unknown>
  placeMarket: (context: ExecutorContext, plan: MarketOrderPlan) => Promise<unknown>
  placeOtc: (context: ExecutorContext, intent: Extract<Intent, { kind: 'otc' }>) => Promise<unknown>
  cancel: (context: ExecutorContext, ids: readonly string[]) => Promise<CancelOutcome[]>
  /** Startup: every order that may have been in flight. */
  recoverAll: (context: ExecutorContext) => Promise<RecoveryOutcome[]>
  /** One order journaled but not known to be submitted. */
  recoverOne: (context: ExecutorContext, order: JournalOrder) => Promise<RecoveryOutcome>
}

/** The real venue: the service's API and the chains. */
export const liveOrderPlacement: OrderPlacement = {
  placeDelta: executeDeltaOrder,
  placeMarket: executeMarketOrder,
  placeOtc: executeOtcOrder,
  cancel: cancelOrders,
  recoverAll: recoverInFlightOrders,
  recoverOne: recoverOrder,
}
