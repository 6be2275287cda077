import type { Intent } from '../../domain/intents/intent-schema.js'
import { parseIntent } from '../../domain/intents/parse-intent.js'
import { orderIdOf } from '../../domain/order-id.js'
import { isFinalStatus } from '../../domain/order-status.js'
import type { JournalIntent, RecordIntentParameters } from '../../journal/intents.js'
import type { JournalModeChoice } from '../../journal/mode-choices.js'
import type { JournalOrder } from '../../journal/orders.js'
import { checkRiskLimits, type RiskCheckResult } from '../risk/check-risk-limits.js'
import type { RiskQuote } from '../risk/intent-spend.js'
import { acceptedIntentRecord } from './accepted-intent.js'
import { failureReasonOf, reasonOf } from './execution-errors.js'
import type { ExecutorContext } from './executor-context.js'
import { liveOrderPlacement, type OrderPlacement } from './order-placement.js'
import { planDeltaIntent } from './plan-delta-intent.js'
import { priceSwap } from './price-swap.js'
import type { RecoveryOutcome } from './recover-orders.js'

/** What became of an intent; the journal holds the same (and more). */
export type ExecutionOutcome = {
  /**
   * accepted: its order is submitted (or being resolved); refused: stopped before signing; failed: refused after, or
   * stopped by an error (its name, class and message in `reason`).
   */
  status: JournalIntent['status']
  intent: JournalIntent
  order: JournalOrder | undefined
  modeChoice: JournalModeChoice | undefined
  /** Set when the intent was refused or failed. */
  reason: string | undefined
}

export type Executor = ReturnType<typeof createExecutor>

/**
 * The only component that signs and sends. Each intent: validated, checked against the risk limits (a refusal is
 * journaled with the limit and the numbers), priced, for a swap the mode chosen and journaled, approved, signed,
 * journaled, then submitted exactly once. Repeating an intent (same id) never creates a second order: it returns what
 * the journal holds, finishing a submission a crash interrupted. Whatever it throws on the way (a 5xx after the
 * retries, an answer it cannot read, an RPC error), an intent ends journaled as an outcome, `failed` with the error as
 * its reason, and `execute` resolves with it; it rejects only when the journal itself cannot record that (or the
 * input is not an intent). Call `recover()` at startup before any new intent. `placement` is where orders go once
 * priced and chosen: the live venue, or a backtest's simulated one.
 */
export function createExecutor(context: ExecutorContext, placement: OrderPlacement = liveOrderPlacement) {
  const { journal, clock } = context
  /** Recovery that never sends an order again: one not found counts as never sent, however long it stays valid. */
  const lookupOnly: ExecutorContext = { ...context, settings: { ...context.settings, resubmitMarginSeconds: Number.POSITIVE_INFINITY } }

  function outcome(intentId: string): ExecutionOutcome {
    const intent = journal.getIntent(intentId) as JournalIntent
    return {
      status: intent.status,
      intent,
      order: journal.getOrder({ id: orderIdOf(intentId) }),
      modeChoice: journal.getModeChoice(intentId),
      reason: intent.refusalReason ?? undefined,
    }
  }

  function refuse(intent: Intent, limit: string, reason: string): ExecutionOutcome {
    if (journal.getIntent(intent.id)) journal.refuseIntent(intent.id, reason, limit)
    else journal.recordIntent({ id: intent.id, strategy: intent.strategy, kind: intent.kind, intent, refused: { limit, reason } })
    context.logger?.info({ intentId: intent.id, strategy: intent.strategy, limit, reason }, 'intent refused')
    return outcome(intent.id)
  }

  function riskCheck(intent: Intent, quote: RiskQuote | undefined): RiskCheckResult {
    const now = clock.now()
    return checkRiskLimits({
      intent,
      limits: context.limits,
      usage: journal.riskUsage({ strategies: [intent.strategy], now }),
      now,
      killSwitch: context.killSwitch,
      quote,
    })
  }

  async function execute(input: unknown): Promise<ExecutionOutcome> {
    const intent = parseIntent(input)
    try {
      return await executeIntent(intent)
    } catch (error) {
      return settleError(intent, error)
    }
  }

  async function executeIntent(intent: Intent): Promise<ExecutionOutcome> {
    const stored = journal.getIntent(intent.id)
    if (stored && stored.status !== 'accepted') return outcome(intent.id)
    if (intent.kind === 'cancel') return executeCancel(intent)
    const storedOrder = journal.getOrder({ id: orderIdOf(intent.id) })
    if (stored && storedOrder) return resume(intent, storedOrder)

    if (!stored) {
      const early = riskCheck(intent, undefined)
      if (!early.allowed && early.limit !== 'quoteRequired') return refuse(intent, early.limit, early.reason)
    }
    return price(intent)
  }

  async function price(intent: Exclude<Intent, { kind: 'cancel' }>): Promise<ExecutionOutcome> {
    switch (intent.kind) {
      case 'swap': {
        const priced = await priceSwap(context, intent)
        const { choice } = priced
        const modeChoice = {
          mode: choice.mode,
          reason: choice.reason,
          explanation: choice.explanation,
          figures: { ...choice, serviceChoice: priced.serviceChoice },
        }
        const recordChoice = () => journal.recordModeChoice({ intentId: intent.id, ...modeChoice })
        if (choice.mode === undefined && !journal.getModeChoice(intent.id)) {
          // No mode can take it: that is the refusal, whatever the limits would say of a trade that cannot happen.
          const refused = refuse(intent, 'mode', `no mode can take the trade: ${choice.explanation}`)
          recordChoice()
          return { ...refused, modeChoice: journal.getModeChoice(intent.id) }
        }
        // An intent accepted now is journaled with this choice. On a restart the first choice stands: the journal's mode
        // (the one recording it again answers) wins over a new comparison.
        const acceptance = accept(intent, priced.riskQuote, modeChoice)
        if (acceptance.refused) return acceptance.refused
        const mode = acceptance.recordedNow ? choice.mode : (recordChoice().mode ?? undefined)
        if (mode === 'delta' && priced.delta) {
          await placement.placeDelta(context, {
            intent,
            price: priced.delta,
            chainId: intent.chainId,
            destChainId: intent.chainId,
            srcToken: intent.srcToken,
            destToken: intent.destToken,
            beneficiary: context.account.address,
            side: intent.side,
            deadline: Math.floor(clock.now() / 1000) + context.settings.deltaValiditySeconds,
            build: { slippage: intent.maxSlippageBps },
            permitPreference: context.settings.permitPreference,
            submit: { type: 'MARKET', partiallyFillable: false },
          })
        } else if (mode === 'market' && priced.market) {
          await placement.placeMarket(context, { intent, route: priced.market })
        } else {
          journal.refuseIntent(intent.id, `no mode can take the trade: ${choice.explanation}`, 'mode')
        }
        return outcome(intent.id)
      }
      case 'otc': {
        const { refused } = accept(intent, undefined)
        if (refused) return refused
        await placement.placeOtc(context, intent)
        return outcome(intent.id)
      }
      default: {
        const priced = await planDeltaIntent(context, intent)
        if (priced.priceGuard !== undefined) return refuse(intent, 'priceGuard', priced.priceGuard)
        const { refused } = accept(intent, priced.riskQuote)
        if (refused) return refused
        await placement.placeDelta(context, priced.plan)
        return outcome(intent.id)
      }
    }
  }

  /**
   * The full risk check with the quote; journals the intent accepted (with its spend, and its mode choice in the same
   * transaction when given) or refused. An intent journaled before (a restart) is left as it is.
   */
  function accept(
    intent: Exclude<Intent, { kind: 'cancel' }>,
    quote: RiskQuote | undefined,
    modeChoice?: RecordIntentParameters['modeChoice'],
  ): { refused: ExecutionOutcome } | { refused?: undefined; recordedNow: boolean } {
    if (journal.getIntent(intent.id)) return { recordedNow: false }
    const check = riskCheck(intent, quote)
    if (!check.allowed) return { refused: refuse(intent, check.limit, check.reason) }
    journal.recordIntent(acceptedIntentRecord(intent, quote, modeChoice))
    return { recordedNow: true }
  }

  /** The intent already has an order: finish what a crash interrupted (the order is never built again). */
  async function resume(intent: Intent, order: JournalOrder): Promise<ExecutionOutcome> {
    if (!order.submitted) {
      const recovery = await placement.recoverOne(context, order)
      context.logger?.info({ intentId: intent.id, orderId: order.id, recovery }, 'resumed an interrupted submission')
    }
    return outcome(intent.id)
  }

  async function executeCancel(intent: Extract<Intent, { kind: 'cancel' }>): Promise<ExecutionOutcome> {
    journal.recordIntent({ id: intent.id, strategy: intent.strategy, kind: 'cancel', intent })
    // cancelOrders resolves intent ids itself and reports one without an order as not-found. An intent that was
    // refused or failed before it had an order has nothing to cancel: that is not a failure of the cancel.
    const results = await placement.cancel(context, [...intent.orderIds, ...intent.intentIds])
    const orderless = (id: string) => ['refused', 'failed'].includes(journal.getIntent(id)?.status ?? '')
    const failed = results.filter((result) => result.outcome === 'failed' || (result.outcome === 'not-found' && !orderless(result.id)))
    if (failed.length > 0) {
      journal.failIntent(intent.id, failed.map((result) => `${result.id}: ${result.outcome} (${result.detail})`).join('; '), 'cancel')
    } else {
      journal.completeIntent(intent.id)
    }
    return outcome(intent.id)
  }

  /**
   * Turns an error met while executing `intent` into its journaled outcome, whatever the error's class:
   * - not journaled yet (pricing): an operational error (no route, a revert at estimation) refuses it, any other fails it;
   * - accepted without an order: failed (approvals already sent are journaled transactions; nothing was signed);
   * - its order at the venue (submitted): the error came after; the intent stays accepted and the reconciler follows it;
   * - its order signed but not known to the venue (a 5xx after the retries, a lost or unreadable answer): resolved at
   *   once as a restart would (by hash at the venue, by transaction on chain; sent again, exactly as signed, if unknown);
   *   if that fails too, the intent fails and the order stays in flight: `recover()` takes the venue's copy if there is
   *   one and never sends it again, because the strategy was told that the intent failed.
   */
  async function settleError(intent: Intent, error: unknown): Promise<ExecutionOutcome> {
    const reason = failureReasonOf(error)
    const stored = journal.getIntent(intent.id)
    const fields = { intentId: intent.id, strategy: intent.strategy, reason }
    if (!stored) {
      if (errorClassOf(error) === 'operational') return refuse(intent, 'pricing', reasonOf(error))
      journal.recordIntent({ id: intent.id, strategy: intent.strategy, kind: intent.kind, intent, failed: { stage: 'pricing', reason } })
      context.logger?.warn(fields, 'intent failed before it was accepted')
      return outcome(intent.id)
    }
    if (stored.status !== 'accepted') return outcome(intent.id)
    const order = journal.getOrder({ id: orderIdOf(intent.id) })
    if (order?.submitted) {
      context.logger?.warn({ ...fields, orderId: order.id }, 'an error after the venue took the order; the intent stays accepted')
      return outcome(intent.id)
    }
    if (order && !isFinalStatus(order.mode, order.status)) {
      try {
        const recovery = await placement.recoverOne(context, order)
        context.logger?.info({ ...fields, orderId: order.id, recovery }, 'resolved the order of an interrupted submission')
        const settled = outcome(intent.id)
        if (settled.order?.submitted || settled.status !== 'accepted') return settled
      } catch (again) {
        context.logger?.warn({ ...fields, orderId: order.id, again: failureReasonOf(again) }, 'the order stays in flight')
      }
    }
    const stage = intent.kind === 'cancel' ? 'cancel' : order ? 'submission' : 'execution'
    journal.failIntent(intent.id, reason, stage)
    context.logger?.warn({ ...fields, stage, orderId: order?.id }, 'intent failed')
    return outcome(intent.id)
  }

  /**
   * Resolves the in-flight orders (signed, not known to be submitted) that `which` selects, one by one. The order of an
   * intent that failed is looked up only: the venue's copy (or the chain's transaction) is taken and followed from then
   * on; one the venue does not hold is closed unsent, since its strategy was told the intent failed and may have
   * placed another. Any other order is resolved as recoverInFlightOrders does (sent again, as signed, while valid).
   */
  async function resolveInFlight(which: 'all' | 'failed'): Promise<RecoveryOutcome[]> {
    const outcomes: RecoveryOutcome[] = []
    for (const order of journal.inFlightOrders()) {
      const failed = journal.getIntent(order.intentId)?.status === 'failed'
      if (which === 'failed' && !failed) continue
      try {
        const recovery = await placement.recoverOne(failed ? lookupOnly : context, order)
        if (failed)
          context.logger?.info({ orderId: order.id, intentId: order.intentId, recovery }, 'looked up the order of a failed intent')
        outcomes.push(recovery)
      } catch (error) {
        context.logger?.warn({ orderId: order.id, reason: reasonOf(error) }, 'recovery of an in-flight order failed; it stays in flight')
        outcomes.push({ orderId: order.id, mode: order.mode, outcome: 'error', detail: reasonOf(error) })
      }
    }
    // A crash between an order's final status and its intent's completion (in a reconciliation) left the intent open.
    if (which === 'all') for (const intentId of journal.settledAcceptedIntents()) journal.completeIntent(intentId)
    return outcomes
  }

  return {
    execute,
    /** Startup recovery: resolves every order that may have been in flight. Run it before any new intent. */
    recover: () => resolveInFlight('all'),
    /**
     * Looks up again the orders of failed intents still in doubt (the venue could not be asked when they failed), never
     * sending one: safe while intents execute, e.g. at each reconciliation pass.
     */
    settleInDoubt: () => resolveInFlight('failed'),
    cancel: (ids: readonly string[]) => placement.cancel(context, ids),
    /** With a tripped kill switch that cancels open orders: cancels every open Delta and OTC order. */
    enforceKillSwitch: async () => {
      if (!context.killSwitch?.isTripped() || !context.killSwitch.cancelOpenOrders) return []
      const open = journal.openOrders().filter((order) => order.mode !== 'market' && order.submitted)
      return placement.cancel(
        context,
        open.map((order) => order.id),
      )
    },
  }
}

function errorClassOf(error: unknown): string | undefined {
  return (error as { errorClass?: string } | null | undefined)?.errorClass
}
