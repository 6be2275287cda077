import type { Subscription } from 'rxjs'
import type { Intent } from '../domain/intents/intent-schema.js'
import type { ExecutionOutcome } from '../exec/executor/executor.js'
import { createExecutor } from '../exec/executor/executor.js'
import type { ExecutorContext } from '../exec/executor/executor-context.js'
import { type Quote, quoteRequestKey } from '../feed/quote.js'
import { createQuoteFeed } from '../feed/quote-feed.js'
import type { TokenDecimals } from '../feed/token-decimals.js'
import { reconcileOrders } from '../journal/reconcile/reconcile-orders.js'
import { createLogger, type Logger } from '../log/logger.js'
import { frozenQuote } from '../strategy/frozen-copy.js'
import type { SafeStrategy, StrategyRun, StrategyStats } from '../strategy/safe-strategy.js'
import { type ClockTimer, clockSpeed, everyOnClock } from '../time/clock-timer.js'
import { BotStateError } from './bot-errors.js'
import type { BotMetrics } from './bot-metrics.js'
import { createOrderEventTracker, type StrategyOrderEvent } from './order-event-tracker.js'
import { readBalances } from './read-balances.js'
import { createSerialQueue } from './serial-queue.js'

export type CreateBotParameters = {
  context: ExecutorContext
  strategies: readonly SafeStrategy[]
  /** Real time between quote polls of each subscription, ms. */
  feedIntervalMs: number
  /** Real time between reconciliation passes, ms (strategy timers count on the context's clock). */
  reconcileIntervalMs: number
  /** Decimals of every subscribed token (the price endpoints need them). */
  decimalsOf: TokenDecimals
  /** Defaults to the context's logger, else a silent one. */
  logger?: Logger | undefined
  /** Told of quotes, executions, reconciliations, deliveries and handlers as they happen (e.g. Prometheus series). */
  metrics?: BotMetrics | undefined
  /** Intents are validated and logged, never executed: nothing is signed or sent (mode dry-run). */
  dryRun?: boolean | undefined
}

export type BotStats = {
  running: boolean
  quotes: number
  quoteErrors: number
  intentsQueued: number
  executions: { accepted: number; refused: number; failed: number; done: number }
  /** execute() threw (a retryable or fatal error): logged, the bot went on. */
  executionErrors: number
  reconcilePasses: number
  reconcileErrors: number
  /** Clock ms of the last quote and of the last reconciliation pass that succeeded (null before the first). */
  lastQuoteAt: number | null
  lastReconcileAt: number | null
  /** Intents logged instead of executed (dry-run). */
  dryRunIntents: number
  delivered: { orderUpdates: number; fills: number; refunds: number; timers: number; balances: number }
  balanceErrors: number
  strategies: Record<string, StrategyStats>
}

export type Bot = {
  /** Recovers in-flight orders, starts the strategies, then subscribes to quotes, timers and reconciliation. */
  start: () => Promise<void>
  /**
   * Unsubscribes, waits for handlers and executions in flight, stops the strategies (their intents still run), and
   * reconciles once more.
   */
  stop: () => Promise<void>
  stats: () => BotStats
}

/**
 * The bot runtime: one quote feed over the union of the strategies' subscriptions, each quote to the strategies
 * subscribed to it; the intents they return executed one at a time (nonces and risk checks stay consistent); every
 * `reconcileIntervalMs` the journal is reconciled and the strategies hear about their orders' status changes, fills
 * and refunds. What was delivered is journaled: a restart delivers what the previous run did not, and nothing twice.
 *
 * @example
 * const bot = createBot({ context, strategies: [takeProfit], feedIntervalMs: 2_000, reconcileIntervalMs: 5_000, decimalsOf })
 * await bot.start()
 * process.once('SIGINT', () => void bot.stop())
 */
export function createBot({
  context,
  strategies,
  feedIntervalMs,
  reconcileIntervalMs,
  decimalsOf,
  metrics,
  dryRun = false,
  ...rest
}: CreateBotParameters): Bot {
  const logger = (rest.logger ?? context.logger ?? createLogger({ level: 'silent' })).child({ unit: 'bot' })
  const executor = createExecutor(context)
  const executions = createSerialQueue()
  const tracker = createOrderEventTracker(
    context.journal,
    strategies.map((strategy) => strategy.name),
  )
  const handlers = new Set<Promise<unknown>>()
  const timers: ReturnType<typeof setInterval>[] = []
  const clockTimers: ClockTimer[] = []
  const stats: Omit<BotStats, 'strategies' | 'running'> = {
    quotes: 0,
    quoteErrors: 0,
    intentsQueued: 0,
    executions: { accepted: 0, refused: 0, failed: 0, done: 0 },
    executionErrors: 0,
    reconcilePasses: 0,
    reconcileErrors: 0,
    lastQuoteAt: null,
    lastReconcileAt: null,
    dryRunIntents: 0,
    delivered: { orderUpdates: 0, fills: 0, refunds: 0, timers: 0, balances: 0 },
    balanceErrors: 0,
  }
  let state: 'new' | 'running' | 'stopping' | 'stopped' = 'new'
  let feedSubscription: Subscription | undefined
  let reconciling: Promise<void> | undefined
  let killSwitchEnforced = false

  function enqueue(intent: Intent): void {
    stats.intentsQueued += 1
    if (dryRun) {
      stats.dryRunIntents += 1
      logger.info({ intent, strategy: intent.strategy }, 'dry run: intent not executed')
      return
    }
    void executions.push(async () => {
      const started = performance.now()
      try {
        const outcome = await executor.execute(intent)
        metrics?.execution(intent.kind, outcome.status, performance.now() - started)
        record(intent, outcome)
      } catch (error) {
        stats.executionErrors += 1
        metrics?.executionError()
        logger.error({ err: error, intentId: intent.id, strategy: intent.strategy }, 'intent execution threw')
      }
    })
  }

  function record(intent: Intent, outcome: ExecutionOutcome): void {
    stats.executions[outcome.status] += 1
    const strategy = strategies.find((candidate) => candidate.name === intent.strategy)
    if (strategy) {
      const result = {
        intentId: intent.id,
        kind: intent.kind,
        status: outcome.status,
        reason: outcome.reason ?? null,
        orderId: outcome.order?.id ?? null,
      }
      void run(strategy.name, () => strategy.handleIntentResult(result))
    }
    const fields = { intentId: intent.id, strategy: intent.strategy, status: outcome.status, orderId: outcome.order?.id }
    if (outcome.status === 'accepted' || outcome.status === 'done') logger.info(fields, 'intent executed')
    else logger.warn({ ...fields, reason: outcome.reason }, 'intent not executed')
  }

  /** Runs one strategy handler; its intents join the execution queue. Never rejects (SafeStrategy contains failures). */
  function run(strategy: string, call: () => Promise<StrategyRun>): Promise<void> {
    const started = performance.now()
    const handled = call().then((result) => {
      metrics?.handler(strategy, result.outcome, performance.now() - started)
      if (result.outcome === 'handled') for (const intent of result.intents) enqueue(intent)
    })
    handlers.add(handled)
    void handled.finally(() => handlers.delete(handled))
    return handled
  }

  function deliver({ strategy: name, acknowledge, ...item }: StrategyOrderEvent): void {
    const strategy = strategies.find((candidate) => candidate.name === name)
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
    // Acknowledged once handled, failed or not: an event that makes a strategy fail would otherwise come back forever.
    void handled.then(acknowledge).catch((error: unknown) => logger.error({ err: error }, 'journaling a delivery failed'))
  }

  async function reconcilePass(): Promise<void> {
    const started = performance.now()
    await checkKillSwitch()
    try {
      await reconcileOrders({
        journal: context.journal,
        api: context.api,
        chains: context.chains,
        account: context.account.address,
        clock: context.clock,
        logger,
      })
      stats.reconcilePasses += 1
      stats.lastReconcileAt = context.clock.now()
      metrics?.reconcile(performance.now() - started, true)
    } catch (error) {
      stats.reconcileErrors += 1
      metrics?.reconcile(performance.now() - started, false)
      logger.error({ err: error }, 'reconciliation failed')
    }
    // Orders the executor journaled since the last pass are reported too, reconciled or not.
    if (state === 'running') for (const event of tracker.collect()) deliver(event)
    if (state === 'running') await deliverBalances()
  }

  /** Once per trip: logged, and open orders cancelled when the switch says so (the executor refuses new intents). */
  async function checkKillSwitch(): Promise<void> {
    const killSwitch = context.killSwitch
    if (!killSwitch?.isTripped()) {
      killSwitchEnforced = false
      return
    }
    if (killSwitchEnforced) return
    killSwitchEnforced = true
    logger.error({ reason: killSwitch.reason, cancelOpenOrders: killSwitch.cancelOpenOrders }, 'kill switch tripped: no new orders')
    try {
      const cancelled = await executor.enforceKillSwitch()
      if (cancelled.length > 0) logger.warn({ cancelled }, 'kill switch: open orders cancelled')
    } catch (error) {
      killSwitchEnforced = false
      logger.error({ err: error }, 'kill switch: cancelling open orders failed; trying again at the next pass')
    }
  }

  /** The watched balances, read once for all strategies and given to each its own. */
  async function deliverBalances(): Promise<void> {
    const watching = strategies.filter((strategy) => strategy.balances.length > 0)
    if (watching.length === 0) return
    try {
      const balances = await readBalances(
        context.chains,
        context.account.address,
        watching.flatMap((strategy) => strategy.balances),
      )
      const now = context.clock.now()
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
    } catch (error) {
      stats.balanceErrors += 1
      logger.warn({ err: error }, 'reading watched balances failed')
    }
  }

  const subscribers = new Map<string, SafeStrategy[]>()
  for (const strategy of strategies) {
    for (const key of new Set(strategy.subscriptions.map(quoteRequestKey)))
      subscribers.set(key, [...(subscribers.get(key) ?? []), strategy])
  }
  const subscribersOf = (key: string): readonly SafeStrategy[] => subscribers.get(key) ?? []

  function subscribe(): void {
    const requests = strategies.flatMap((strategy) => strategy.subscriptions)
    if (requests.length > 0) {
      const feed = createQuoteFeed({ api: context.api, decimalsOf, requests, intervalMs: feedIntervalMs, clock: context.clock })
      feedSubscription = feed.events.subscribe((event) => {
        if (event.type === 'error') {
          stats.quoteErrors += 1
          metrics?.quoteError()
          logger.warn({ err: event.error, key: event.key, failures: event.failures, retryInMs: event.retryInMs }, 'quote poll failed')
          return
        }
        stats.quotes += 1
        stats.lastQuoteAt = context.clock.now()
        metrics?.quote(event.quote.request.source, (event.quote.receivedAt - event.quote.requestedAt) / clockSpeed(context.clock))
        // One read-only view, shared by every subscriber (no copy per strategy).
        const quote = frozenQuote(event.quote) as Quote
        for (const strategy of subscribersOf(event.key)) void run(strategy.name, () => strategy.handleQuote(quote))
      })
    }
    for (const strategy of strategies) {
      for (const intervalMs of strategy.timers) {
        const timer = everyOnClock(context.clock, intervalMs, () => {
          stats.delivered.timers += 1
          metrics?.delivered('timer')
          void run(strategy.name, () => strategy.handleTimer(intervalMs))
        })
        clockTimers.push(timer)
      }
    }
    timers.push(
      setInterval(() => {
        // A pass still running makes this tick be skipped.
        if (reconciling) return
        reconciling = reconcilePass().finally(() => {
          reconciling = undefined
        })
      }, reconcileIntervalMs),
    )
  }

  async function settle(): Promise<void> {
    while (handlers.size > 0 || executions.pending() > 0) {
      await Promise.all([...handlers])
      await executions.idle()
    }
  }

  return {
    start: async () => {
      if (state !== 'new') throw new BotStateError({ action: 'start', state })
      state = 'running'
      const recovery = await executor.recover()
      logger.info({ recovery }, 'recovered in-flight orders')
      await Promise.all(strategies.map((strategy) => run(strategy.name, () => strategy.start())))
      await deliverBalances()
      subscribe()
      logger.info({ strategies: strategies.map((strategy) => strategy.name) }, 'bot started')
    },
    stop: async () => {
      if (state !== 'running') throw new BotStateError({ action: 'stop', state })
      state = 'stopping'
      feedSubscription?.unsubscribe()
      for (const timer of timers) clearInterval(timer)
      for (const timer of clockTimers) timer.cancel()
      await reconciling
      await settle()
      await Promise.all(strategies.map((strategy) => run(strategy.name, () => strategy.stop())))
      await settle()
      // What the last executions changed (cancels on stop, orders just placed) is in the journal before the bot ends.
      await reconcilePass()
      state = 'stopped'
      logger.info({ stats: { ...stats } }, 'bot stopped')
    },
    stats: () => ({
      ...stats,
      executions: { ...stats.executions },
      delivered: { ...stats.delivered },
      running: state === 'running',
      strategies: Object.fromEntries(strategies.map((strategy) => [strategy.name, strategy.stats()])),
    }),
  }
}
