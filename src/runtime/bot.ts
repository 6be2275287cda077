import type { Subscription } from 'rxjs'
import type { CancelOutcome } from '../exec/executor/cancel-orders.js'
import { createExecutor } from '../exec/executor/executor.js'
import type { ExecutorContext } from '../exec/executor/executor-context.js'
import type { Quote } from '../feed/quote.js'
import { createQuoteFeed } from '../feed/quote-feed.js'
import type { TokenDecimals } from '../feed/token-decimals.js'
import { reconcileOrders } from '../journal/reconcile/reconcile-orders.js'
import { createLogger, type Logger } from '../log/logger.js'
import { frozenQuote } from '../strategy/frozen-copy.js'
import type { SafeStrategy, StrategyStats } from '../strategy/safe-strategy.js'
import { type ClockTimer, clockSpeed, everyOnClock } from '../time/clock-timer.js'
import { BotStateError } from './bot-errors.js'
import type { BotMetrics } from './bot-metrics.js'
import { pauseUnavailableChains } from './chain-pause.js'
import { type ConnectionHealth, describeFailure } from './connection-health.js'
import type { LatestPrices } from './latest-prices.js'
import { createOrderEventTracker } from './order-event-tracker.js'
import { readBalances } from './read-balances.js'
import { settleOrders } from './settle-order.js'
import { createStrategyDispatch } from './strategy-dispatch.js'

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
  /**
   * How long stop() follows the orders still CANCELLING after its last pass until they are final, in ms of the
   * context's clock (the venue's). Default 10_000; 0 reconciles them once more.
   */
  stopWaitMs?: number | undefined
  /**
   * Whether the venue and each chain answer, fed by their transports (openSession's). With it, the bot probes every
   * chain at each reconciliation interval and pauses a chain that does not answer: new intents for it end `failed`
   * (ChainUnavailableError) without an order, and reconciliation leaves it out (counted) until it answers again.
   */
  connections?: ConnectionHealth | undefined
  /** Told of every quote the feed delivers (the console values PnL and equity at the latest ones). */
  prices?: Pick<LatestPrices, 'observe'> | undefined
}

/** The default of `stopWaitMs`: ten seconds of the venue's clock. */
export const defaultStopWaitMs = 10_000

/** An order the bot left not final at stop: the next start (or `deltaflow reconcile`) follows it. */
export type PendingOrderView = {
  id: string
  strategy: string | undefined
  intentId: string
  chainId: number
  venueId: string | null
  status: string
}

/** What stop() did about orders still CANCELLING once the strategies stopped. */
export type BotStopReport = {
  /** Orders CANCELLING after the last pass, followed until final. */
  followed: number
  /** Of those, the ones still not final when `stopWaitMs` was up. */
  pending: PendingOrderView[]
  /** Ms of the context's clock spent following them. */
  waitedMs: number
  stopWaitMs: number
}

export type BotStats = {
  running: boolean
  quotes: number
  quoteErrors: number
  intentsQueued: number
  executions: { accepted: number; refused: number; failed: number; done: number }
  /** execute() rejected (the journal could not record the outcome): the strategy was told `failed`; every other error is a journaled `failed` execution. */
  executionErrors: number
  reconcilePasses: number
  reconcileErrors: number
  /** Chains left out of reconciliation passes because their RPC did not answer (one per chain per pass). */
  reconcileSkips: number
  /** Chains paused now: their RPC's last call failed. */
  unavailableChains: number[]
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
   * reconciles once more; orders then still CANCELLING (cancels on stop) are followed until final for `stopWaitMs`.
   * Returns the orders still pending.
   */
  stop: () => Promise<BotStopReport>
  stats: () => BotStats
  /**
   * A reconciliation pass now (after the one running, if any), as the interval runs it: the kill switch checked and
   * enforced, orders reconciled, strategies told. `ok` is false when reconciling failed (logged).
   */
  reconcile: () => Promise<{ ok: boolean; at: number | null }>
  /** Cancels orders through the executor (as `deltaflow cancel` does); the next pass journals what follows. */
  cancel: (ids: readonly string[]) => Promise<CancelOutcome[]>
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
  stopWaitMs = defaultStopWaitMs,
  connections,
  prices,
  ...rest
}: CreateBotParameters): Bot {
  if (!Number.isFinite(stopWaitMs) || stopWaitMs < 0) {
    throw new RangeError(`stopWaitMs expects a number of ms of at least 0, received ${stopWaitMs}`)
  }
  const logger = (rest.logger ?? context.logger ?? createLogger({ level: 'silent' })).child({ unit: 'bot' })
  const executor = createExecutor(context)
  const tracker = createOrderEventTracker(
    context.journal,
    strategies.map((strategy) => strategy.name),
  )
  const execute = connections
    ? pauseUnavailableChains(executor.execute, { journal: context.journal, connections, logger })
    : executor.execute
  const dispatch = createStrategyDispatch({ strategies, execute, tracker, logger, metrics, dryRun })
  const timers: ReturnType<typeof setInterval>[] = []
  const clockTimers: ClockTimer[] = []
  const stats = {
    quotes: 0,
    quoteErrors: 0,
    reconcilePasses: 0,
    reconcileErrors: 0,
    reconcileSkips: 0,
    lastQuoteAt: null as number | null,
    lastReconcileAt: null as number | null,
  }
  let state: 'new' | 'running' | 'stopping' | 'stopped' = 'new'
  let feedSubscription: Subscription | undefined
  let reconciling: Promise<void> | undefined
  /** Probes in flight, per chain: a chain whose probe hangs (a node that stopped answering) is not probed twice. */
  const probing = new Map<number, Promise<void>>()
  /** The trip last enforced (its reason and whether it cancels): a new trip, or one that now cancels, is enforced again. */
  let killSwitchEnforced: string | undefined

  async function reconcilePass(): Promise<boolean> {
    let ok = false
    const started = performance.now()
    await checkKillSwitch()
    try {
      const report = await reconcileOrders({
        journal: context.journal,
        api: context.api,
        chains: context.chains,
        account: context.account.address,
        clock: context.clock,
        logger,
        skipChains: new Set(connections?.unavailableChains()),
      })
      stats.reconcileSkips += report.skipped.chains.length
      metrics?.reconcileReport(report)
      stats.reconcilePasses += 1
      stats.lastReconcileAt = context.clock.now()
      metrics?.reconcile(performance.now() - started, true)
      ok = true
    } catch (error) {
      stats.reconcileErrors += 1
      metrics?.reconcile(performance.now() - started, false)
      logger.error({ err: error }, 'reconciliation failed')
    }
    // Orders signed for intents that failed at submission: taken from the venue if it has them, else closed unsent.
    const inDoubt = await executor.settleInDoubt().catch((error: unknown) => {
      logger.warn({ err: error }, 'looking up the orders of failed intents failed')
      return []
    })
    if (inDoubt.length > 0) logger.info({ inDoubt }, 'looked up the orders of failed intents again')
    // Orders the executor journaled since the last pass are reported too, reconciled or not.
    if (state === 'running') dispatch.deliverOrderEvents()
    if (state === 'running') await deliverBalances()
    return ok
  }

  /** Once per trip: logged, and open orders cancelled when the switch says so (the executor refuses new intents). */
  async function checkKillSwitch(): Promise<void> {
    const killSwitch = context.killSwitch
    if (!killSwitch?.isTripped()) {
      killSwitchEnforced = undefined
      return
    }
    const trip = `${killSwitch.reason}\n${killSwitch.cancelOpenOrders}`
    if (killSwitchEnforced === trip) return
    killSwitchEnforced = trip
    logger.error({ reason: killSwitch.reason, cancelOpenOrders: killSwitch.cancelOpenOrders }, 'kill switch tripped: no new orders')
    try {
      const outcomes = await executor.enforceKillSwitch()
      if (outcomes.length > 0) logKillSwitchOutcomes(outcomes)
      // Orders whose cancellation failed (a batch the venue refused) are tried again at the next pass.
      if (outcomes.some((outcome) => outcome.outcome === 'failed')) killSwitchEnforced = undefined
    } catch (error) {
      killSwitchEnforced = undefined
      logger.error({ err: error }, 'kill switch: cancelling open orders failed; trying again at the next pass')
    }
  }

  /** One line for the whole cancellation (counts per outcome), and each order that failed with its reason. */
  function logKillSwitchOutcomes(outcomes: readonly CancelOutcome[]): void {
    const counts: Record<string, number> = {}
    for (const outcome of outcomes) counts[outcome.outcome] = (counts[outcome.outcome] ?? 0) + 1
    const failed = outcomes.filter((outcome) => outcome.outcome === 'failed').map(({ id, detail }) => ({ id, detail }))
    if (failed.length > 0)
      logger.error({ counts, failed }, 'kill switch: some open orders could not be cancelled; trying again at the next pass')
    else logger.warn({ counts }, 'kill switch: open orders cancelled')
  }

  /** Follows the orders still CANCELLING until final, for `stopWaitMs` of the clock at most. */
  async function followCancelling(): Promise<BotStopReport> {
    const cancelling = context.journal.openOrders().filter((order) => order.status === 'CANCELLING')
    if (cancelling.length === 0) return { followed: 0, pending: [], waitedMs: 0, stopWaitMs }
    logger.info({ orders: cancelling.length, stopWaitMs }, 'following orders still CANCELLING until final')
    const { pending, waitedMs } = await settleOrders(context, {
      orderIds: cancelling.map((order) => order.id),
      waitMs: stopWaitMs,
      // About ten passes over the wait, in real ms, none closer than 50 ms nor further apart than the reconcile interval.
      pollMs: Math.round(Math.max(50, Math.min(reconcileIntervalMs, stopWaitMs / clockSpeed(context.clock) / 10))),
    })
    const views = pending.map((order) => ({
      id: order.id,
      strategy: context.journal.getIntent(order.intentId)?.strategy,
      intentId: order.intentId,
      chainId: order.chainId,
      venueId: order.venueId,
      status: order.status,
    }))
    if (views.length > 0) logger.warn({ pending: views, stopWaitMs }, 'orders still not final at stop; the next start follows them')
    return { followed: cancelling.length, pending: views, waitedMs, stopWaitMs }
  }

  /**
   * One cheap call per chain (its block number) so that a chain nobody calls is still known down, and a paused one
   * known up again; its outcome reaches `connections` through the chain's transport.
   */
  function probeChains(): void {
    for (const [chainId, chain] of context.chains) {
      if (probing.has(chainId)) continue
      const probe = chain.publicClient
        .getBlockNumber({ cacheTime: 0 })
        .then(
          () => undefined,
          // The error's first line only: viem's messages carry the RPC URL, which may hold a key.
          (error: unknown) => logger.debug({ chainId, error: describeFailure(error) }, 'chain probe failed'),
        )
        .finally(() => probing.delete(chainId))
      probing.set(chainId, probe)
    }
  }

  /** The watched balances, read from the chains at one block per chain. */
  function deliverBalances(): Promise<void> {
    return dispatch.deliverBalances((requests) => readBalances(context.chains, context.account.address, requests), context.clock.now())
  }

  function subscribe(): void {
    if (connections) probeChains()
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
        prices?.observe(event.quote)
        metrics?.quote(event.quote.request.source, (event.quote.receivedAt - event.quote.requestedAt) / clockSpeed(context.clock))
        // One read-only view, shared by every subscriber (no copy per strategy).
        dispatch.quote(frozenQuote(event.quote) as Quote)
      })
    }
    for (const strategy of strategies) {
      for (const intervalMs of strategy.timers) {
        clockTimers.push(everyOnClock(context.clock, intervalMs, () => dispatch.timer(strategy, intervalMs)))
      }
    }
    if (connections) timers.push(setInterval(probeChains, reconcileIntervalMs))
    timers.push(
      setInterval(() => {
        // A pass still running makes this tick be skipped.
        if (reconciling) return
        reconciling = reconcilePass()
          .then(() => undefined)
          .finally(() => {
            reconciling = undefined
          })
      }, reconcileIntervalMs),
    )
  }

  return {
    start: async () => {
      if (state !== 'new') throw new BotStateError({ action: 'start', state })
      state = 'running'
      const recovery = await executor.recover()
      logger.info({ recovery }, 'recovered in-flight orders')
      await dispatch.start()
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
      // Probes still in flight are not waited for: a node that stopped answering holds one until its timeout.
      await reconciling
      await dispatch.settle()
      await dispatch.stop()
      await dispatch.settle()
      // What the last executions changed (cancels on stop, orders just placed) is in the journal before the bot ends.
      await reconcilePass()
      const report = await followCancelling()
      state = 'stopped'
      logger.info({ stats: statsOf() }, 'bot stopped')
      return report
    },
    stats: statsOf,
    reconcile: async () => {
      if (state !== 'running') throw new BotStateError({ action: 'reconcile', state })
      while (reconciling) await reconciling
      let ok = false
      reconciling = reconcilePass()
        .then((passed) => {
          ok = passed
        })
        .finally(() => {
          reconciling = undefined
        })
      await reconciling
      return { ok, at: stats.lastReconcileAt }
    },
    cancel: (ids) => executor.cancel(ids),
  }

  function statsOf(): BotStats {
    return {
      ...stats,
      ...dispatch.stats(),
      running: state === 'running',
      unavailableChains: connections?.unavailableChains() ?? [],
      strategies: Object.fromEntries(strategies.map((strategy) => [strategy.name, strategy.stats()])),
    }
  }
}
