import type { Intent } from '../../domain/intents/intent-schema.js'
import { parseIntent } from '../../domain/intents/parse-intent.js'
import { orderIdOf } from '../../domain/order-id.js'
import type { JournalIntent } from '../../journal/intents.js'
import type { JournalModeChoice } from '../../journal/mode-choices.js'
import type { JournalOrder } from '../../journal/orders.js'
import { checkRiskLimits, type RiskCheckResult } from '../risk/check-risk-limits.js'
import { intentSpend, type RiskQuote } from '../risk/intent-spend.js'
import { reasonOf } from './execution-errors.js'
import type { ExecutorContext } from './executor-context.js'
import { liveOrderPlacement, type OrderPlacement } from './order-placement.js'
import { planDeltaIntent } from './plan-delta-intent.js'
import { priceSwap } from './price-swap.js'

/** What became of an intent; the journal holds the same (and more). */
export type ExecutionOutcome = {
  /** accepted: its order is submitted (or being resolved); refused: stopped before signing; failed: refused after. */
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
 * the journal holds, finishing a submission a crash interrupted. Call `recover()` at startup before any new intent.
 * `placement` is where orders go once priced and chosen: the live venue, or a backtest's simulated one.
 */
export function createExecutor(context: ExecutorContext, placement: OrderPlacement = liveOrderPlacement) {
  const { journal, clock } = context

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
    return checkRiskLimits({
      intent,
      limits: context.limits,
      usage: journal.riskUsage({ strategies: [intent.strategy] }),
      now: clock.now(),
      killSwitch: context.killSwitch,
      quote,
    })
  }

  async function execute(input: unknown): Promise<ExecutionOutcome> {
    const intent = parseIntent(input)
    const stored = journal.getIntent(intent.id)
    if (stored && stored.status !== 'accepted') return outcome(intent.id)
    if (intent.kind === 'cancel') return executeCancel(intent)
    const storedOrder = journal.getOrder({ id: orderIdOf(intent.id) })
    if (stored && storedOrder) return resume(intent, storedOrder)

    if (!stored) {
      const early = riskCheck(intent, undefined)
      if (!early.allowed && early.limit !== 'quoteRequired') return refuse(intent, early.limit, early.reason)
    }
    try {
      return await price(intent)
    } catch (error) {
      return failOrRethrow(intent, error)
    }
  }

  async function price(intent: Exclude<Intent, { kind: 'cancel' }>): Promise<ExecutionOutcome> {
    switch (intent.kind) {
      case 'swap': {
        const priced = await priceSwap(context, intent)
        const { choice } = priced
        const recordChoice = () =>
          journal.recordModeChoice({
            intentId: intent.id,
            mode: choice.mode,
            reason: choice.reason,
            explanation: choice.explanation,
            figures: { ...choice, serviceChoice: priced.serviceChoice },
          })
        if (choice.mode === undefined && !journal.getModeChoice(intent.id)) {
          // No mode can take it: that is the refusal, whatever the limits would say of a trade that cannot happen.
          const refused = refuse(intent, 'mode', `no mode can take the trade: ${choice.explanation}`)
          recordChoice()
          return { ...refused, modeChoice: journal.getModeChoice(intent.id) }
        }
        const accepted = accept(intent, priced.riskQuote)
        if (accepted) return accepted
        recordChoice()
        // A restart keeps the first choice: the journal's mode wins over a new comparison.
        const mode = journal.getModeChoice(intent.id)?.mode ?? undefined
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
        const accepted = accept(intent, undefined)
        if (accepted) return accepted
        await placement.placeOtc(context, intent)
        return outcome(intent.id)
      }
      default: {
        const priced = await planDeltaIntent(context, intent)
        if (priced.priceGuard !== undefined) return refuse(intent, 'priceGuard', priced.priceGuard)
        const accepted = accept(intent, priced.riskQuote)
        if (accepted) return accepted
        await placement.placeDelta(context, priced.plan)
        return outcome(intent.id)
      }
    }
  }

  /** The full risk check with the quote; journals the intent accepted (with its spend) or refused. Returns a refusal. */
  function accept(intent: Exclude<Intent, { kind: 'cancel' }>, quote: RiskQuote | undefined): ExecutionOutcome | undefined {
    if (journal.getIntent(intent.id)) return undefined
    const check = riskCheck(intent, quote)
    if (!check.allowed) return refuse(intent, check.limit, check.reason)
    const spend = intentSpend(intent, quote)
    journal.recordIntent({
      id: intent.id,
      strategy: intent.strategy,
      kind: intent.kind,
      intent,
      spend: spend && 'amount' in spend ? { token: spend.token, amount: spend.amount } : undefined,
    })
    return undefined
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
   * Fatal and retryable errors are thrown: the intent stays as it was (a repeat resumes it; an order in flight is
   * resolved by recovery). An operational one (no route, a revert at estimation, a refused approval) refuses the intent
   * when it never got past pricing, and fails it when it was accepted and has no order yet.
   */
  function failOrRethrow(intent: Intent, error: unknown): ExecutionOutcome {
    const errorClass = (error as { errorClass?: string } | undefined)?.errorClass
    if (errorClass === 'fatal' || errorClass === 'retryable') throw error
    const stored = journal.getIntent(intent.id)
    if (!stored) return refuse(intent, 'pricing', reasonOf(error))
    const order = journal.getOrder({ id: orderIdOf(intent.id) })
    if (order && !order.submitted) throw error
    journal.failIntent(intent.id, reasonOf(error), 'execution')
    context.logger?.warn({ intentId: intent.id, reason: reasonOf(error) }, 'intent failed')
    return outcome(intent.id)
  }

  return {
    execute,
    /** Startup recovery: resolves every order that may have been in flight. Run it before any new intent. */
    recover: () => placement.recoverAll(context),
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
