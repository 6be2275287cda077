import type { Intent } from '../domain/intents/intent-schema.js'
import type { IntentResult } from '../domain/order-views.js'
import { failureReasonOf } from '../exec/executor/execution-errors.js'
import type { ExecutionOutcome } from '../exec/executor/executor.js'
import { type Quote, quoteRequestKey } from '../feed/quote.js'
import type { Logger } from '../log/logger.js'
import type { SafeStrategy, StrategyRun } from '../strategy/safe-strategy.js'
import type { BalanceRequest } from '../strategy/strategy-events.js'
import type { BotMetrics } from './bot-metrics.js'
import type { OrderEventTracker, StrategyOrderEvent } from './order-event-tracker.js'
import { createSerialQueue } from './serial-queue.js'

export type DispatchStats = {
  intentsQueued: number
  executions: { accepted: number; refused: number; failed: number; done: number }
  /**
   * execute() rejected (the journal could not record the outcome, or the input was no intent): logged, the strategy
   * told `failed` with the error, the bot went on. The executor journals every other error as a `failed` execution.
   */
  executionErrors: number
  /** Intent results told to strategies: equals the intents executed, whatever happened to them. */
  intentResults: number
  /** Intents logged instead of executed (dry-run). */
  dryRunIntents: number
  delivered: { orderUpdates: number; fills: number; refunds: number; timers: number; balances: number }
  balanceErrors: number
}

export type CreateStrategyDispatchParameters = {
  strategies: readonly SafeStrategy[]
  /** The executor's one entry point (live: the real venue; backtest: the simulated one). */
  execute: (intent: Intent) => Promise<ExecutionOutcome>
  tracker: OrderEventTracker
  logger: Logger
  metrics?: BotMetrics | undefined
  /** Intents are validated and logged, never executed (mode dry-run). */
  dryRun?: boolean | undefined
  /** Told of every outcome before the strategy hears of it (a backtest counts refusals by reason). */
  onOutcome?: ((intent: Intent, outcome: ExecutionOutcome) => void) | undefined
}

export type StrategyDispatch = {
  /** onStart of every strategy. */
  start: () => Promise<void>
  /** A quote, to each strategy subscribed to its request. */
  quote: (quote: Quote) => void
  /** One strategy's timer of `intervalMs` fired. */
  timer: (strategy: SafeStrategy, intervalMs: number) => void
  /** Status changes, fills and refunds the journal holds and the strategies have not heard of, each acknowledged once handled. */
  deliverOrderEvents: () => void
  /** The watched balances, read once for every strategy watching and handed to each its own. */
  deliverBalances: (
    read: (requests: readonly BalanceRequest[]) => Promise<readonly (BalanceRequest & { amount: bigint })[]>,
    now: number,
  ) => Promise<void>
  /** onStop of every strategy (their intents still execute). */
  stop: () => Promise<void>
  /** A handler runs or an intent waits or executes: settle() has something to wait for. */
  busy: () => boolean
  /** Resolves once no handler runs and no intent waits or executes, including those they caused. */
  settle: () => Promise<void>
  stats: () => DispatchStats
}

/**
 * How strategies are driven, live and in a backtest alike: every event reaches the strategy's safe wrapper (one event
 * at a time per strategy, in call order); the intents a handler returns join one execution queue and run one at a time
 * (nonces and risk checks stay consistent); each outcome is told to its strategy as an intent result, whose intents
 * join the queue in turn. Every intent gets a result: one whose execution rejected is told `failed` with the error.
 * Order events are acknowledged in the journal once handled, failed or not, so an event that makes a strategy fail
 * does not come back forever. What differs between live and backtest is only who calls in, on which clock, and the
 * venue behind `execute`.
 */
export function createStrategyDispatch({
  strategies,
  execute,
  tracker,
  logger,
  metrics,
  dryRun = false,
  onOutcome,
}: CreateStrategyDispatchParameters): StrategyDispatch {
  const executions = createSerialQueue()
  const handlers = new Set<Promise<unknown>>()
  const byName = new Map(strategies.map((strategy) => [strategy.name, strategy]))
  const subscribers = new Map<string, SafeStrategy[]>()
  for (const strategy of strategies) {
    for (const key of new Set(strategy.subscriptions.map(quoteRequestKey)))
      subscribers.set(key, [...(subscribers.get(key) ?? []), strategy])
  }
  const stats: DispatchStats = {
    intentsQueued: 0,
    executions: { accepted: 0, refused: 0, failed: 0, done: 0 },
    executionErrors: 0,
    intentResults: 0,
    dryRunIntents: 0,
    delivered: { orderUpdates: 0, fills: 0, refunds: 0, timers: 0, balances: 0 },
    balanceErrors: 0,
  }

  /** Runs one strategy handler; its intents join the execution queue. Never rejects (SafeStrategy contains failures). */
  function run(strategy: string, call: () => Promise<StrategyRun>): Promise<void> {
    return runNow(strategy, call) ?? Promise.resolve()
  }

  /**
   * As run, for a call that may answer at once (offerQuote, offerTimer): a run answered synchronously is taken now
   * and nothing is returned; a promise is followed until it settles (and returned).
   */
  function runNow(strategy: string, call: () => StrategyRun | Promise<StrategyRun>): Promise<void> | undefined {
    const started = metrics ? performance.now() : 0
    return answered(strategy, call(), started)
  }

  /** A handler's answer: taken now when it is the run itself, else followed (and the promise returned). */
  function answered(strategy: string, answer: StrategyRun | Promise<StrategyRun>, started: number): Promise<void> | undefined {
    if (answer instanceof Promise) return follow(strategy, answer, started)
    took(strategy, answer, started)
    return undefined
  }

  /** A handler's run that answered with a promise: followed until it settles, settle() waiting for it meanwhile. */
  function follow(strategy: string, answer: Promise<StrategyRun>, started: number): Promise<void> {
    const handled: Promise<void> = answer.then(
      (result) => {
        handlers.delete(handled)
        took(strategy, result, started)
      },
      (error: unknown) => {
        handlers.delete(handled)
        logger.error({ err: error, strategy }, 'a strategy handler rejected')
      },
    )
    handlers.add(handled)
    return handled
  }

  function took(strategy: string, result: StrategyRun, started: number): void {
    metrics?.handler(strategy, result.outcome, performance.now() - started)
    if (result.outcome !== 'handled') return
    const { intents } = result
    for (let index = 0; index < intents.length; index++) enqueue(intents[index] as Intent)
  }

  function enqueue(intent: Intent): void {
    stats.intentsQueued += 1
    if (dryRun) {
      stats.dryRunIntents += 1
      logger.info({ intent, strategy: intent.strategy }, 'dry run: intent not executed')
      return
    }
    void executions.push(async () => {
      const started = metrics ? performance.now() : 0
      let outcome: ExecutionOutcome
      try {
        outcome = await execute(intent)
      } catch (error) {
        // The executor journals every error it meets as a failed outcome; this is what it could not journal.
        stats.executionErrors += 1
        metrics?.executionError()
        const reason = failureReasonOf(error)
        logger.error(
          { err: error, intentId: intent.id, strategy: intent.strategy },
          'intent execution threw; its strategy is told it failed',
        )
        tell(intent, { status: 'failed', reason, orderId: null })
        return
      }
      metrics?.execution(intent.kind, outcome.status, performance.now() - started)
      try {
        record(intent, outcome)
      } catch (error) {
        logger.error({ err: error, intentId: intent.id, strategy: intent.strategy }, 'recording an intent outcome failed')
      }
    })
  }

  function record(intent: Intent, outcome: ExecutionOutcome): void {
    stats.executions[outcome.status] += 1
    onOutcome?.(intent, outcome)
    tell(intent, { status: outcome.status, reason: outcome.reason ?? null, orderId: outcome.order?.id ?? null })
    const fields = { intentId: intent.id, strategy: intent.strategy, status: outcome.status, orderId: outcome.order?.id }
    if (outcome.status === 'accepted' || outcome.status === 'done') logger.info(fields, 'intent executed')
    else logger.warn({ ...fields, reason: outcome.reason }, 'intent not executed')
  }

  /** The intent's result, to the strategy that asked for it. */
  function tell(intent: Intent, result: Pick<IntentResult, 'status' | 'reason' | 'orderId'>): void {
    const strategy = byName.get(intent.strategy)
    if (!strategy) return
    stats.intentResults += 1
    const event: IntentResult = { intentId: intent.id, kind: intent.kind, ...result }
    void run(strategy.name, () => strategy.handleIntentResult(event))
  }

  function deliver({ strategy: name, acknowledge, ...item }: StrategyOrderEvent): void {
    const strategy = byName.get(name)
    if (!strategy) return
    let handled: Promise<void>
    if (item.type === 'orderUpdate') {
      stats.delivered.orderUpdates += 1
      metrics?.delivered('orderUpdate')
      handled = run(strategy.name, () => strategy.handleOrderUpdate(item.event))
    } else if (item.type === 'fill') {
      stats.delivered.fills += 1
      metrics?.delivered('fill')
      handled = run(strategy.name, () => strategy.handleFill(item.event))
    } else {
      stats.delivered.refunds += 1
      metrics?.delivered('refund')
      handled = run(strategy.name, () => strategy.handleRefund(item.event))
    }
    void handled.then(acknowledge).catch((error: unknown) => logger.error({ err: error }, 'journaling a delivery failed'))
  }

  const watching = strategies.filter((strategy) => strategy.balances.length > 0)
  /** Each watched token once, whoever watches it. */
  const watched = [
    ...new Map(
      watching.flatMap((strategy) => strategy.balances).map((request) => [`${request.chainId}:${request.token.toLowerCase()}`, request]),
    ).values(),
  ]

  return {
    start: async () => {
      await Promise.all(strategies.map((strategy) => run(strategy.name, () => strategy.start())))
    },
    quote: (quote) => {
      const list = subscribers.get(quote.key)
      if (list === undefined) return
      for (const strategy of list) {
        // As runNow, without a closure per quote and strategy: a replay delivers millions.
        const started = metrics ? performance.now() : 0
        void answered(strategy.name, strategy.offerQuote(quote), started)
      }
    },
    timer: (strategy, intervalMs) => {
      stats.delivered.timers += 1
      metrics?.delivered('timer')
      void runNow(strategy.name, () => strategy.offerTimer(intervalMs))
    },
    deliverOrderEvents: () => {
      for (const event of tracker.collect()) deliver(event)
    },
    deliverBalances: async (read, now) => {
      if (watching.length === 0) return
      let balances: readonly (BalanceRequest & { amount: bigint })[]
      try {
        balances = await read(watched)
      } catch (error) {
        stats.balanceErrors += 1
        logger.warn({ err: error }, 'reading watched balances failed')
        return
      }
      for (const strategy of watching) {
        const own = balances.filter((balance) =>
          strategy.balances.some(
            (request) => request.chainId === balance.chainId && request.token.toLowerCase() === balance.token.toLowerCase(),
          ),
        )
        stats.delivered.balances += 1
        metrics?.delivered('balances')
        void run(strategy.name, () => strategy.handleBalances({ now, balances: own }))
      }
    },
    stop: async () => {
      await Promise.all(strategies.map((strategy) => run(strategy.name, () => strategy.stop())))
    },
    busy: () => handlers.size > 0 || executions.pending() > 0,
    settle: async () => {
      // Handlers queue intents, intents' results run handlers: until both are quiet. Called after every event of a
      // backtest, so the common cases (one handler, nothing queued) take no extra promise.
      while (handlers.size > 0 || executions.pending() > 0) {
        if (handlers.size === 1) await handlers.values().next().value
        else if (handlers.size > 1) await Promise.all(handlers)
        if (executions.pending() > 0) await executions.idle()
      }
    },
    stats: () => ({ ...stats, executions: { ...stats.executions }, delivered: { ...stats.delivered } }),
  }
}
