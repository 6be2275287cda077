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
import { type Quote, quoteRequestKey } from '../feed/quote.js'
import { openJournal } from '../journal/journal.js'
import { type Logger, silentLogger } from '../log/logger.js'
import { deltaAddress, deltaChainIds, marketRouterAddress, rfqAddresses } from '../protocol/addresses.js'
import { loadKeccak } from '../protocol/keccak.js'
import { loadStrategyDefinitions } from '../runtime/load-strategies.js'
import { createOrderEventTracker } from '../runtime/order-event-tracker.js'
import { createStrategyDispatch } from '../runtime/strategy-dispatch.js'
import { frozenQuote } from '../strategy/frozen-copy.js'
import { createMemoryStateStore } from '../strategy/memory-state-store.js'
import { createSafeStrategy, type SafeStrategy } from '../strategy/safe-strategy.js'
import { ManualClock } from '../time/clock.js'
import { auctionSeedOf } from './fill-draws.js'
import type { FillModelName } from './fill-model.js'
import { type BookPair, createReplayBook, pairKeyOf, priceFromBook } from './replay-book.js'
import type { QuoteBlock, QuoteReplaySource, ReplayRequest } from './replay-source.js'
import { answerOfScaled, createSimulatedApi } from './simulated-api.js'
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
  let journalChanged = false
  // The runtime's own dispatch, as live: what differs is the clock, the venue behind the executor, and that each event
  // is settled (its handlers, intents and intent results) before the replay moves on. Refusals are summed up in the
  // results' warnings, so the dispatch logs only errors unless debugging.
  const dispatch = createStrategyDispatch({
    strategies,
    execute: executor.execute,
    tracker,
    logger: logger.isLevelEnabled('debug') ? logger : logger.child({}, { level: 'error' }),
    onOutcome: (intent, outcome) => {
      journalChanged = true
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
  const warnings: string[] = []

  // --- what each strategy is subscribed to, matched to the recorded requests as they first appear ---
  const subscriptions = strategies.flatMap((strategy) =>
    strategy.subscriptions.map((request) => ({
      strategy,
      request,
      key: quoteRequestKey(request),
      pair: {
        source: request.source === 'delta' ? 'delta' : 'market',
        chainId: request.chainId,
        destChainId: request.destChainId ?? request.chainId,
        srcToken: request.srcToken,
        destToken: request.destToken,
        side: request.side,
      } satisfies BookPair,
    })),
  )
  type Subscription = (typeof subscriptions)[number]
  /** One subscribed key a recorded request serves: its own quotes (exact) or quotes scaled from them. */
  type Served = { subscription: Subscription; exact: boolean }
  /** Per request id: who hears its quotes (null: nobody). Recomputed when a new request appears (rare). */
  let served: (Served[] | null)[] = []
  const known: ReplayRequest[] = []
  const exactKeys = new Set<string>()
  const scaledKeys = new Set<string>()

  /**
   * A subscription hears the recorded request of its key; when the quote set has no such size, it hears the nearest
   * recorded size of its pair (by ratio), scaled to its own amount (and is warned about).
   */
  function discover(request: ReplayRequest): void {
    known.push(request)
    const { chainId, srcToken, destToken } = request.request
    decimals.set(`${chainId}:${srcToken.toLowerCase()}`, request.srcDecimals)
    decimals.set(`${request.request.destChainId ?? chainId}:${destToken.toLowerCase()}`, request.destDecimals)
    const keys = new Set(known.map((item) => item.key))
    const next: (Served[] | null)[] = []
    for (const item of known) next[item.id] = null
    for (const subscription of subscriptions) {
      let target: ReplayRequest | undefined
      const exact = keys.has(subscription.key)
      if (exact) {
        target = known.find((item) => item.key === subscription.key)
        exactKeys.add(subscription.key)
      } else {
        const pairKey = pairKeyOf(subscription.pair)
        let best = Number.POSITIVE_INFINITY
        for (const item of known) {
          if (pairKeyOf(pairOfReplay(item)) !== pairKey || item.request.amount === 0n) continue
          const distance = Math.abs(Math.log(Number(subscription.request.amount) / Number(item.request.amount)))
          if (distance < best) {
            best = distance
            target = item
          }
        }
      }
      if (!target) continue
      const list = next[target.id] ?? []
      if (!list.some((item) => item.subscription.key === subscription.key)) list.push({ subscription, exact })
      next[target.id] = list
    }
    served = next
  }

  function scaledQuote(block: QuoteBlock, index: number, subscription: Subscription): Quote | undefined {
    scaledKeys.add(subscription.key)
    const scaled = priceFromBook(book, subscription.pair, subscription.request.amount, clock.now(), maxQuoteAgeMs)
    if (!scaled) return undefined
    let answer: Quote['answer'] | undefined
    return {
      request: subscription.request,
      key: subscription.key,
      srcAmount: scaled.srcAmount,
      destAmount: scaled.destAmount,
      requestedAt: block.requestedAt(index),
      receivedAt: block.time(index),
      get answer() {
        answer ??= answerOfScaled(scaled)
        return answer
      },
    }
  }

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

  /**
   * A reconciliation tick, as live: what the venue journaled since the last one reaches the strategies, then the
   * watched balances (every tick, changed or not: a strategy may plan from them at any time).
   */
  const watchingBalances = strategies.some((strategy) => strategy.balances.length > 0)
  function reconcileTick(): Promise<void> | undefined {
    const changed = venue.takeChanged() || journalChanged
    journalChanged = false
    if (changed) dispatch.deliverOrderEvents()
    if (watchingBalances) return deliverBalances().then(() => dispatch.settle())
    return dispatch.busy() ? dispatch.settle() : undefined
  }

  function deliverBalances(): Promise<void> {
    return dispatch.deliverBalances(
      async (requests) => requests.map((request) => ({ ...request, amount: venue.balanceOf(request.chainId, request.token) })),
      clock.now(),
    )
  }

  // --- time: everything due up to a quote's time runs at its own time, in order ---
  const reconcileMs = config.reconcile.intervalMs
  let nextReconcile = start + reconcileMs
  const timers = strategies.flatMap((strategy) => strategy.timers.map((intervalMs) => ({ strategy, intervalMs, due: start + intervalMs })))

  /**
   * The next reconciliation tick with work to do: the grid stays start + k × interval, but ticks with nothing to
   * deliver (no journal change, no watched balances) are passed over without running.
   */
  function nextReconcileAt(): number {
    if (!(watchingBalances || journalChanged || venue.hasChanged())) return Number.POSITIVE_INFINITY
    const now = clock.now()
    if (nextReconcile < now) nextReconcile += Math.ceil((now - nextReconcile) / reconcileMs) * reconcileMs
    return nextReconcile
  }

  /** When the next thing falls due: a reconciliation tick, an equity sample, the venue's next event (given) or a timer. */
  function nextDueAt(venueNext: number | undefined): number {
    let next = Math.min(nextReconcileAt(), valuation.nextSampleAt())
    if (venueNext !== undefined && venueNext < next) next = venueNext
    for (const timer of timers) if (timer.due < next) next = timer.due
    return next
  }

  /** The clock to `time`, running what falls due on the way; a promise only when something does. */
  function advanceTo(time: number): Promise<void> | undefined {
    if (nextDueAt(venue.nextEventAt()) > time) {
      if (time > clock.now()) clock.set(time)
      return undefined
    }
    return runDueUntil(time)
  }

  /** Runs every instant due up to `time`, in order; a promise only when a handler or an intent is still running. */
  function runDueUntil(time: number): Promise<void> | undefined {
    for (;;) {
      const venueNext = venue.nextEventAt()
      const next = nextDueAt(venueNext)
      if (next > time) break
      if (next > clock.now()) clock.set(next)
      if (venueNext !== undefined && venueNext <= next) venue.runDue()
      const waiting = timersDue(next, 0)
      if (waiting !== undefined) return waiting.then(() => reconcileAndSample(next)).then(() => runDueUntil(time))
      const reconciling = reconcileAndSample(next)
      if (reconciling !== undefined) return reconciling.then(() => runDueUntil(time))
    }
    if (time > clock.now()) clock.set(time)
    return undefined
  }

  /** The timers due at `next`, from the `from`-th on, each settled before the next one fires. */
  function timersDue(next: number, from: number): Promise<void> | undefined {
    for (let at = from; at < timers.length; at++) {
      const timer = timers[at] as (typeof timers)[number]
      if (timer.due > next) continue
      while (timer.due <= next) timer.due += timer.intervalMs
      dispatch.timer(timer.strategy, timer.intervalMs)
      if (dispatch.busy()) return dispatch.settle().then(() => timersDue(next, at + 1))
    }
    return undefined
  }

  /** The reconciliation tick and the valuation's sample when due at `next`. */
  function reconcileAndSample(next: number): Promise<void> | undefined {
    if (nextReconcileAt() <= next) {
      while (nextReconcile <= next) nextReconcile += reconcileMs
      const reconciling = reconcileTick()
      if (reconciling !== undefined) return reconciling.then(() => sampleDue(next))
    }
    sampleDue(next)
    return undefined
  }

  function sampleDue(next: number): void {
    if (valuation.nextSampleAt() <= next) valuation.sample(venue)
  }

  // --- the replay ---
  /** The quote to its subscribers; a promise only when something it caused is still running (a handler, an intent). */
  function deliverQuote(block: QuoteBlock, index: number, subscribers: readonly Served[]): Promise<void> | undefined {
    // One read-only view of the recorded quote, shared by every subscriber of its own key.
    let view: Quote | undefined
    for (const { subscription, exact } of subscribers) {
      if (exact) view ??= frozenQuote(block.quote(index)) as Quote
      const quote = exact ? view : scaledQuote(block, index, subscription)
      if (quote) dispatch.quote(quote)
    }
    return dispatch.busy() ? dispatch.settle() : undefined
  }

  // Strategies start once the first instant's quotes are in the book, so that what they ask for at start can be
  // priced; those quotes reach them right after their start.
  let started = false
  const opening: { block: QuoteBlock; index: number; subscribers: Served[] }[] = []
  async function startStrategies(): Promise<void> {
    started = true
    await dispatch.start()
    await deliverBalances()
    await dispatch.settle()
    for (const { block, index, subscribers } of opening.splice(0)) await deliverQuote(block, index, subscribers)
  }

  let quotes = 0
  let last = start
  /** Stretches without any quote longer than maxQuoteAgeSeconds: nothing can be priced or filled in them. */
  const gaps: { from: number; to: number }[] = []
  let end = to
  // With --from, the quotes of the last maxQuoteAgeSeconds before it fill the book first (not heard by anyone):
  // the market as it stood when the run starts.
  /** What the replay waits for before it goes on: the strategies' start, what falls due, or what a quote caused. */
  let waitFor: Promise<void> | undefined

  /**
   * Replays the block's quotes from `index` on, synchronously, until one needs something asynchronous to finish first
   * (left in `waitFor`); returns the index to go on from once it has (the block's length when done).
   */
  function replay(block: QuoteBlock, index: number): number {
    const length = block.length
    for (; index < length; index++) {
      const time = block.time(index)
      if (time < start) {
        const id = book.update(block, index)
        if (served[id] === undefined) discover(block.request(index))
        continue
      }
      if (time > clock.now()) {
        // The clock stands at the previous quote's time here (or at the start).
        if (!started) {
          waitFor = startStrategies()
          return index
        }
        if (time - clock.now() > maxQuoteAgeMs) gaps.push({ from: clock.now(), to: time })
        const due = advanceTo(time)
        if (due) {
          // Back at this quote once it is done, the clock at its time.
          waitFor = due
          return index
        }
      }
      const id = book.update(block, index)
      if (book.isWatched(id)) venue.quoted(id)
      if (served[id] === undefined) discover(block.request(index))
      const subscribers = served[id]
      if (subscribers === null || subscribers === undefined) continue
      if (!started) opening.push({ block, index, subscribers })
      else {
        const delivered = deliverQuote(block, index, subscribers)
        if (delivered) {
          waitFor = delivered
          return index + 1
        }
      }
    }
    return length
  }

  for await (const block of source.blocks({ from: from === undefined ? start : start - maxQuoteAgeMs, to })) {
    let index = 0
    for (;;) {
      index = replay(block, index)
      if (waitFor === undefined) break
      const pending = waitFor
      waitFor = undefined
      await pending
    }
    const length = block.length
    quotes += length
    last = clock.now()
    if (onProgress && (quotes & 0xffff) < length) onProgress({ now: last, from: start, to: end ?? last, quotes })
  }
  if (!started) await startStrategies()
  end = end ?? last + 1
  await advanceTo(end - 1)
  venue.runDue()
  await reconcileTick()
  await dispatch.stop()
  await dispatch.settle()
  journalChanged = true
  await reconcileTick()
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

function pairOfReplay(item: ReplayRequest): BookPair {
  const { source, chainId, destChainId, srcToken, destToken, side } = item.request
  return { source: source === 'delta' ? 'delta' : 'market', chainId, destChainId: destChainId ?? chainId, srcToken, destToken, side }
}

async function firstQuoteTime(source: QuoteReplaySource): Promise<number | undefined> {
  for await (const block of source.blocks()) if (block.length > 0) return block.time(0)
  return undefined
}
