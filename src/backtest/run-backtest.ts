import { type Address, keccak256, stringToHex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import type { DeploymentContracts } from '../chain/deployment.js'
import { executorSettingsOf } from '../config/executor-settings.js'
import type { ConfigDocument } from '../config/load-config.js'
import type { Intent } from '../domain/intents/intent-schema.js'
import { createRandom } from '../domain/seeded-random.js'
import { BaseError } from '../errors/base.js'
import { createExecutor, type ExecutionOutcome } from '../exec/executor/executor.js'
import { createExecutorContext, type ExecutorContext } from '../exec/executor/executor-context.js'
import { openJournal } from '../journal/journal.js'
import { type Logger, silentLogger } from '../log/logger.js'
import { deltaAddress, deltaChainIds, marketRouterAddress, rfqAddresses } from '../protocol/addresses.js'
import { loadKeccak } from '../protocol/keccak.js'
import { loadStrategyDefinitions } from '../runtime/load-strategies.js'
import { createOrderEventTracker } from '../runtime/order-event-tracker.js'
import { createStrategyDispatch } from '../runtime/strategy-dispatch.js'
import { createMemoryStateStore } from '../strategy/memory-state-store.js'
import { createSafeStrategy, type SafeStrategy } from '../strategy/safe-strategy.js'
import { ManualClock } from '../time/clock.js'
import { BacktestReplay } from './backtest-replay.js'
import { auctionSeedOf } from './fill-draws.js'
import type { FillModelName } from './fill-model.js'
import { type BookPair, createReplayBook } from './replay-book.js'
import type { QuoteReplaySource } from './replay-source.js'
import { createSimulatedApi } from './simulated-api.js'
import { createSimulatedVenue, type SimulatedVenue } from './simulated-venue.js'
import { createValuation, pairOf, type Valuation } from './valuation.js'

export type BacktestProgress = { now: number; from: number; to: number; quotes: number }

export type RunBacktestParameters = {
  document: ConfigDocument
  source: QuoteReplaySource
  /** Clock ms; quotes before are skipped. Default: the first quote. */
  from?: number | undefined
  /** Clock ms, exclusive. Default: after the last quote. */
  to?: number | undefined
  logger?: Logger | undefined
  /** Called about every 64k quotes with where the replay is. */
  onProgress?: ((progress: BacktestProgress) => void) | undefined
  /** SQLite file of the run's journal, kept after the run for inspection. Default: in memory, gone with the run. */
  journalFile?: string | undefined
}

/** What a backtest run leaves: the journal's contents and the venue's record, for the results. */
export type BacktestRun = {
  from: number
  to: number
  quotes: number
  /** The fill model the venue used (`backtest.fill.model`). */
  fillModel: FillModelName
  venue: SimulatedVenue
  valuation: Valuation
  strategies: readonly SafeStrategy[]
  /** Orders by status per strategy, from the journal. */
  ordersByStrategy: Record<string, Record<string, number>>
  intents: { accepted: number; refused: number; failed: number; done: number }
  warnings: string[]
  account: Address
  /** Decimals of a token seen in the quotes, by `"chainId:token"` (lowercase). */
  decimalsOf: (tokenKey: string) => number | undefined
}

/** A backtest that cannot run (no quotes in the range, a strategy's token absent from the quote set). */
export class BacktestError extends BaseError {
  override name = 'BacktestError' as const
  constructor(message: string, options: { details?: Record<string, unknown>; hint?: string } = {}) {
    super(message, { ...options, errorClass: 'operational' })
  }
}

/** A wallet no one holds: a backtest signs nothing, the executor only needs an address. */
const backtestAccount = privateKeyToAccount(keccak256(stringToHex('deltaflow backtest wallet')))

/** The production deployment of every Delta chain, so the executor sees the modes a chain really has. */
function productionContracts(): DeploymentContracts {
  const chains = new Set([...deltaChainIds, ...Object.keys(rfqAddresses).map(Number)])
  return Object.fromEntries(
    [...chains].map((chainId) => [
      chainId,
      {
        augustusV6_2: marketRouterAddress,
        ...(deltaChainIds.includes(chainId) ? { delta: deltaAddress } : {}),
        ...(rfqAddresses[chainId] ? { augustusRFQ: rfqAddresses[chainId] } : {}),
      },
    ]),
  )
}

/**
 * Replays recorded quotes through the configured strategies, the executor's own logic (intent validation, risk limits,
 * pricing, mode choice) and a simulated venue, on a manual clock that moves to each quote's time: a quote is visible
 * (to the strategies, the executor's pricing and the fill model) only once the clock has reached it. Between quotes,
 * whatever falls due runs at its own time, in time order: the venue's settlements, TWAP slices, bridges and deadlines,
 * the strategies' timers, and the reconciliation ticks at which the strategies hear of their orders and balances
 * (every `reconcile.intervalMs`, as live). Intents run one at a time, each to its end, before the replay goes on.
 */
export async function runBacktest({
  document,
  source,
  from,
  to,
  logger: parentLogger,
  onProgress,
  journalFile = ':memory:',
}: RunBacktestParameters): Promise<BacktestRun> {
  const { config } = document
  const settings = config.backtest
  const logger = (parentLogger ?? silentLogger()).child({ unit: 'backtest' })
  // The replay yields to the event loop rarely, if ever: the WebAssembly keccak (fill and transaction hashes) is made
  // ready before it, or the whole run would hash with the JavaScript fallback.
  const [first] = await Promise.all([from ?? firstQuoteTime(source), loadKeccak()])
  if (first === undefined) throw new BacktestError(`${source.file} holds no quotes${from === undefined ? '' : ' in the range'}`)
  const start: number = first
  const clock = new ManualClock(start)
  const journal = openJournal({ file: journalFile, clock })
  const book = createReplayBook(clock)
  const maxQuoteAgeMs = settings.fill.maxQuoteAgeSeconds * 1000
  /** Pairs priced or filled from the other mode's quotes (the recording has none of their own), said once each. */
  const fallbacks = new Set<string>()
  const onFallback = (asked: BookPair, used: BookPair['source']) =>
    fallbacks.add(
      `${asked.source} prices of ${asked.srcToken} → ${asked.destToken} (${asked.side}, chain ${asked.chainId}) came from ${used} quotes: the recording has none of their own`,
    )
  const api = createSimulatedApi({ book, clock, maxQuoteAgeMs, onFallback })
  const balances = new Map(Object.entries(settings.balances).map(([key, amount]) => [key.toLowerCase(), BigInt(amount)]))
  const venue = createSimulatedVenue({
    book,
    clock,
    journal,
    model: settings.fill,
    random: createRandom(settings.seed),
    auctionRandom: createRandom(auctionSeedOf(settings.seed)),
    balances,
    account: backtestAccount.address,
    onFallback,
  })
  const decimals = new Map<string, number>()
  const { killSwitch: _killSwitch, ...limits } = config.risk
  const context: ExecutorContext = {
    ...createExecutorContext({
      api,
      chains: new Map(),
      contracts: productionContracts(),
      account: backtestAccount,
      journal,
      clock,
      logger,
      limits,
      settings: executorSettingsOf(config.executor),
    }),
    decimalsOf: async (chainId, token) => {
      const known = decimals.get(`${chainId}:${token.toLowerCase()}`)
      if (known === undefined) {
        throw new BacktestError(
          `token ${token} on chain ${chainId} has no quote in ${source.file} up to now, so its decimals are unknown`,
          {
            hint: 'Record or build quotes of every token the strategies trade.',
          },
        )
      }
      return known
    },
  }
  const executor = createExecutor(context, venue.placement)
  const store = createMemoryStateStore()
  const definitions = await loadStrategyDefinitions(document)
  const strategies = definitions.map(({ entry, definition }) =>
    createSafeStrategy({ ...definition, name: entry.name }, { config: entry.config, clock, journal: store, logger }),
  )
  const tracker = createOrderEventTracker(
    journal,
    strategies.map((strategy) => strategy.name),
  )
  /** Refused and failed intents by strategy and reason (numbers masked), with the first occurrence. */
  const refusals = new Map<string, { strategy: string; reason: string; status: string; first: number; count: number }>()
  /** Told of every executed intent (the journal changed); made once the dispatch is. */
  let replay: BacktestReplay | undefined
  // The runtime's own dispatch, as live: what differs is the clock, the venue behind the executor, and that each event
  // is settled (its handlers, intents and intent results) before the replay moves on. Refusals are summed up in the
  // results' warnings, so the dispatch logs only errors unless debugging.
  const dispatch = createStrategyDispatch({
    strategies,
    execute: executor.execute,
    tracker,
    logger: logger.isLevelEnabled('debug') ? logger : logger.child({}, { level: 'error' }),
    onOutcome: (intent, outcome) => {
      if (replay !== undefined) replay.journalChanged = true
      if (outcome.status === 'refused' || outcome.status === 'failed') countRefusal(intent, outcome)
    },
  })
  const headerEnd = Date.parse(String(source.header.meta?.to ?? ''))
  const valuation = createValuation({
    book,
    clock,
    pair: pairOf(settings.pair, source.header, source.file),
    from: start,
    to: to ?? (Number.isFinite(headerEnd) ? headerEnd : undefined),
    samples: settings.samples,
    decimalsOf: (key) => decimals.get(key),
    initial: balances,
  })
  function countRefusal(intent: Intent, outcome: ExecutionOutcome): void {
    const reason = `${outcome.status}: ${(outcome.reason ?? 'no reason').replace(/\d{4,}/g, 'N')}`
    const key = `${intent.strategy}\u0000${reason.slice(0, 160)}`
    const seen = refusals.get(key)
    if (seen) seen.count += 1
    else
      refusals.set(key, {
        strategy: intent.strategy,
        reason: outcome.reason ?? 'no reason',
        status: outcome.status,
        first: clock.now(),
        count: 1,
      })
  }

  const warnings: string[] = []

  replay = new BacktestReplay({
    start,
    to,
    from,
    clock,
    book,
    venue,
    valuation,
    dispatch,
    strategies,
    maxQuoteAgeMs,
    reconcileMs: config.reconcile.intervalMs,
    decimals,
    onProgress,
  })
  const { quotes, end, gaps, subscriptions, exactKeys, scaledKeys } = await replay.run(source)
  await dispatch.stop()
  await dispatch.settle()
  replay.journalChanged = true
  await replay.reconcileTick()
  valuation.sample(venue)

  if (quotes === 0)
    throw new BacktestError(`${source.file} holds no quotes between ${new Date(start).toISOString()} and ${new Date(end).toISOString()}`)
  for (const subscription of subscriptions) {
    if (!exactKeys.has(subscription.key) && !scaledKeys.has(subscription.key)) {
      warnings.push(
        `${subscription.strategy.name} subscribes to ${subscription.key}, which the quote set never prices: it heard no quote of it`,
      )
    }
  }
  for (const key of scaledKeys)
    if (!exactKeys.has(key)) warnings.push(`quotes of ${key} were scaled from the nearest recorded size (the quote set lacks that size)`)
  for (const { strategy, reason, status, first, count } of refusals.values()) {
    warnings.push(
      `${strategy}: ${count} intent${count === 1 ? ' was' : 's were'} ${status}, first at ${new Date(first).toISOString()}: ${reason}`,
    )
  }
  warnings.push(...fallbacks)
  if (gaps.length > 0) {
    const days = (ms: number) => `${(ms / 86_400_000).toFixed(2)} days`
    const listed = gaps
      .slice(0, 3)
      .map((gap) => `${new Date(gap.from).toISOString()} to ${new Date(gap.to).toISOString()} (${days(gap.to - gap.from)})`)
    warnings.push(
      `the quotes stop ${gaps.length} time${gaps.length === 1 ? '' : 's'} for longer than backtest.fill.maxQuoteAgeSeconds (${settings.fill.maxQuoteAgeSeconds} s), ${days(gaps.reduce((sum, gap) => sum + gap.to - gap.from, 0))} in all: ${listed.join(', ')}${gaps.length > 3 ? ', …' : ''}; nothing is priced or filled there`,
    )
  }
  for (const [cause, { count, first }] of venue.sliceMisses()) {
    warnings.push(
      `${count} TWAP slice${count === 1 ? ' was' : 's were'} missed (${cause}), the first: ${first}; an order with a missed slice expires at its deadline`,
    )
  }
  const open = venue.openOrders()
  if (open > 0) warnings.push(`${open} order${open === 1 ? ' was' : 's were'} still open when the quotes ended`)

  const { executions, executionErrors } = dispatch.stats()
  const ordersByStrategy: Record<string, Record<string, number>> = {}
  for (const strategy of strategies) {
    const counts: Record<string, number> = {}
    for (const order of journal.listOrders({ strategy: strategy.name })) counts[order.status] = (counts[order.status] ?? 0) + 1
    ordersByStrategy[strategy.name] = counts
  }
  journal.close()
  return {
    from: start,
    to: end,
    quotes,
    fillModel: settings.fill.model,
    venue,
    valuation,
    strategies,
    ordersByStrategy,
    intents: { ...executions, failed: executions.failed + executionErrors },
    warnings,
    account: backtestAccount.address,
    decimalsOf: (key) => decimals.get(key),
  }
}

async function firstQuoteTime(source: QuoteReplaySource): Promise<number | undefined> {
  for await (const block of source.blocks()) if (block.length > 0) return block.time(0)
  return undefined
}
