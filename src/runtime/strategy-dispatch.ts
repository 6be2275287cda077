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
export function createStrategyDispatch(parameters: CreateStrategyDispatchParameters): StrategyDispatch {
  return new StrategyDispatcher(parameters)
}

type Watched = { strategies: readonly SafeStrategy[]; tokens: readonly BalanceRequest[] }

/**
 * A class rather than closures: every backtest of a process (an optimiser's trials, a benchmark's runs) makes a
 * dispatch, and the replay's code, compiled with the quote path inlined, then meets the same methods in the next run
 * instead of new closures it would be deoptimised for. Its methods are called as methods.
 */
class StrategyDispatcher implements StrategyDispatch {
  readonly #execute: (intent: Intent) => Promise<ExecutionOutcome>
  readonly #tracker: OrderEventTracker
  readonly #logger: Logger
  readonly #metrics: BotMetrics | undefined
  readonly #dryRun: boolean
  readonly #onOutcome: ((intent: Intent, outcome: ExecutionOutcome) => void) | undefined
  readonly #strategies: readonly SafeStrategy[]
  readonly #executions = createSerialQueue()
  readonly #handlers = new Set<Promise<unknown>>()
  readonly #byName: Map<string, SafeStrategy>
  readonly #subscribers = new Map<string, SafeStrategy[]>()
  readonly #watched: Watched
  readonly #stats: DispatchStats = {
    intentsQueued: 0,
    executions: { accepted: 0, refused: 0, failed: 0, done: 0 },
    executionErrors: 0,
    intentResults: 0,
    dryRunIntents: 0,
    delivered: { orderUpdates: 0, fills: 0, refunds: 0, timers: 0, balances: 0 },
    balanceErrors: 0,
  }

  constructor({ strategies, execute, tracker, logger, metrics, dryRun = false, onOutcome }: CreateStrategyDispatchParameters) {
    this.#strategies = strategies
    this.#execute = execute
    this.#tracker = tracker
    this.#logger = logger
    this.#metrics = metrics
    this.#dryRun = dryRun
    this.#onOutcome = onOutcome
    this.#byName = new Map(strategies.map((strategy) => [strategy.name, strategy]))
    for (const strategy of strategies) {
      for (const key of new Set(strategy.subscriptions.map(quoteRequestKey)))
        this.#subscribers.set(key, [...(this.#subscribers.get(key) ?? []), strategy])
    }
    const watching = strategies.filter((strategy) => strategy.balances.length > 0)
    // Each watched token once, whoever watches it.
    const tokens = [
      ...new Map(
        watching.flatMap((strategy) => strategy.balances).map((request) => [`${request.chainId}:${request.token.toLowerCase()}`, request]),
      ).values(),
    ]
    this.#watched = { strategies: watching, tokens }
  }

  /** Runs one strategy handler; its intents join the execution queue. Never rejects (SafeStrategy contains failures). */
  #run(strategy: string, call: () => Promise<StrategyRun>): Promise<void> {
    return this.#runNow(strategy, call) ?? Promise.resolve()
  }

  /**
   * As #run, for a call that may answer at once (offerQuote, offerTimer): a run answered synchronously is taken now
   * and nothing is returned; a promise is followed until it settles (and returned).
   */
  #runNow(strategy: string, call: () => StrategyRun | Promise<StrategyRun>): Promise<void> | undefined {
    const started = this.#metrics ? performance.now() : 0
    return this.#answered(strategy, call(), started)
  }

  /** A handler's answer: taken now when it is the run itself, else followed (and the promise returned). */
  #answered(strategy: string, answer: StrategyRun | Promise<StrategyRun>, started: number): Promise<void> | undefined {
    if (answer instanceof Promise) return this.#follow(strategy, answer, started)
    this.#took(strategy, answer, started)
    return undefined
  }

  /** A handler's run that answered with a promise: followed until it settles, settle() waiting for it meanwhile. */
  #follow(strategy: string, answer: Promise<StrategyRun>, started: number): Promise<void> {
    const handled: Promise<void> = answer.then(
      (result) => {
        this.#handlers.delete(handled)
        this.#took(strategy, result, started)
      },
      (error: unknown) => {
        this.#handlers.delete(handled)
        this.#logger.error({ err: error, strategy }, 'a strategy handler rejected')
      },
    )
    this.#handlers.add(handled)
    return handled
  }

  #took(strategy: string, result: StrategyRun, started: number): void {
    this.#metrics?.handler(strategy, result.outcome, performance.now() - started)
    if (result.outcome !== 'handled') return
    const { intents } = result
    for (let index = 0; index < intents.length; index++) this.#enqueue(intents[index] as Intent)
  }

  #enqueue(intent: Intent): void {
    const stats = this.#stats
    stats.intentsQueued += 1
    if (this.#dryRun) {
      stats.dryRunIntents += 1
      this.#logger.info({ intent, strategy: intent.strategy }, 'dry run: intent not executed')
      return
    }
    void this.#executions.push(async () => {
      const metrics = this.#metrics
      const started = metrics ? performance.now() : 0
      let outcome: ExecutionOutcome
      try {
        outcome = await this.#execute(intent)
      } catch (error) {
        // The executor journals every error it meets as a failed outcome; this is what it could not journal.
        stats.executionErrors += 1
        metrics?.executionError()
        const reason = failureReasonOf(error)
        this.#logger.error(
          { err: error, intentId: intent.id, strategy: intent.strategy },
          'intent execution threw; its strategy is told it failed',
        )
        this.#tell(intent, { status: 'failed', reason, orderId: null })
        return
      }
      metrics?.execution(intent.kind, outcome.status, performance.now() - started)
      try {
        this.#record(intent, outcome)
      } catch (error) {
        this.#logger.error({ err: error, intentId: intent.id, strategy: intent.strategy }, 'recording an intent outcome failed')
      }
    })
  }

  #record(intent: Intent, outcome: ExecutionOutcome): void {
    this.#stats.executions[outcome.status] += 1
    this.#onOutcome?.(intent, outcome)
    this.#tell(intent, { status: outcome.status, reason: outcome.reason ?? null, orderId: outcome.order?.id ?? null })
    const fields = { intentId: intent.id, strategy: intent.strategy, status: outcome.status, orderId: outcome.order?.id }
    if (outcome.status === 'accepted' || outcome.status === 'done') this.#logger.info(fields, 'intent executed')
    else this.#logger.warn({ ...fields, reason: outcome.reason }, 'intent not executed')
  }

  /** The intent's result, to the strategy that asked for it. */
  #tell(intent: Intent, result: Pick<IntentResult, 'status' | 'reason' | 'orderId'>): void {
    const strategy = this.#byName.get(intent.strategy)
    if (!strategy) return
    this.#stats.intentResults += 1
    const event: IntentResult = { intentId: intent.id, kind: intent.kind, ...result }
    void this.#run(strategy.name, () => strategy.handleIntentResult(event))
  }

  #deliver({ strategy: name, acknowledge, ...item }: StrategyOrderEvent): void {
    const strategy = this.#byName.get(name)
    if (!strategy) return
    const { delivered } = this.#stats
    let handled: Promise<void>
    if (item.type === 'orderUpdate') {
      delivered.orderUpdates += 1
      this.#metrics?.delivered('orderUpdate')
      handled = this.#run(strategy.name, () => strategy.handleOrderUpdate(item.event))
    } else if (item.type === 'fill') {
      delivered.fills += 1
      this.#metrics?.delivered('fill')
      handled = this.#run(strategy.name, () => strategy.handleFill(item.event))
    } else {
      delivered.refunds += 1
      this.#metrics?.delivered('refund')
      handled = this.#run(strategy.name, () => strategy.handleRefund(item.event))
    }
    void handled.then(acknowledge).catch((error: unknown) => this.#logger.error({ err: error }, 'journaling a delivery failed'))
  }

  async start(): Promise<void> {
    await Promise.all(this.#strategies.map((strategy) => this.#run(strategy.name, () => strategy.start())))
  }

  quote(quote: Quote): void {
    const list = this.#subscribers.get(quote.key)
    if (list === undefined) return
    const metrics = this.#metrics
    for (const strategy of list) {
      // As #runNow, without a closure per quote and strategy: a replay delivers millions.
      const started = metrics ? performance.now() : 0
      void this.#answered(strategy.name, strategy.offerQuote(quote), started)
    }
  }

  timer(strategy: SafeStrategy, intervalMs: number): void {
    this.#stats.delivered.timers += 1
    this.#metrics?.delivered('timer')
    void this.#runNow(strategy.name, () => strategy.offerTimer(intervalMs))
  }

  deliverOrderEvents(): void {
    for (const event of this.#tracker.collect()) this.#deliver(event)
  }

  async deliverBalances(
    read: (requests: readonly BalanceRequest[]) => Promise<readonly (BalanceRequest & { amount: bigint })[]>,
    now: number,
  ): Promise<void> {
    const { strategies: watching, tokens } = this.#watched
    if (watching.length === 0) return
    let balances: readonly (BalanceRequest & { amount: bigint })[]
    try {
      balances = await read(tokens)
    } catch (error) {
      this.#stats.balanceErrors += 1
      this.#logger.warn({ err: error }, 'reading watched balances failed')
      return
    }
    for (const strategy of watching) {
      const own = balances.filter((balance) =>
        strategy.balances.some(
          (request) => request.chainId === balance.chainId && request.token.toLowerCase() === balance.token.toLowerCase(),
        ),
      )
      this.#stats.delivered.balances += 1
      this.#metrics?.delivered('balances')
      void this.#run(strategy.name, () => strategy.handleBalances({ now, balances: own }))
    }
  }

  async stop(): Promise<void> {
    await Promise.all(this.#strategies.map((strategy) => this.#run(strategy.name, () => strategy.stop())))
  }

  busy(): boolean {
    return this.#handlers.size > 0 || this.#executions.pending() > 0
  }

  async settle(): Promise<void> {
    // Handlers queue intents, intents' results run handlers: until both are quiet. Called after every event of a
    // backtest, so the common cases (one handler, nothing queued) take no extra promise.
    const handlers = this.#handlers
    const executions = this.#executions
    while (handlers.size > 0 || executions.pending() > 0) {
      if (handlers.size === 1) await handlers.values().next().value
      else if (handlers.size > 1) await Promise.all(handlers)
      if (executions.pending() > 0) await executions.idle()
    }
  }

  stats(): DispatchStats {
    const stats = this.#stats
    return { ...stats, executions: { ...stats.executions }, delivered: { ...stats.delivered } }
  }
}
