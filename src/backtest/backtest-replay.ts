import type { Quote, QuoteRequest } from '../feed/quote.js'
import { quoteRequestKey } from '../feed/quote.js'
import type { StrategyDispatch } from '../runtime/strategy-dispatch.js'
import { frozenQuote } from '../strategy/frozen-copy.js'
import type { SafeStrategy } from '../strategy/safe-strategy.js'
import type { ManualClock } from '../time/clock.js'
import { type BookPair, bookPairOf, pairKeyOf, priceFromBook, type ReplayBook } from './replay-book.js'
import type { QuoteBlock, QuoteReplaySource, ReplayRequest } from './replay-source.js'
import { answerOfScaled } from './simulated-api.js'
import type { SimulatedVenue } from './simulated-venue.js'
import type { Valuation } from './valuation.js'

/** One strategy's subscription, with its key and the book pair it prices. */
export type ReplaySubscription = { strategy: SafeStrategy; request: QuoteRequest; key: string; pair: BookPair }

/** One subscribed key a recorded request serves: its own quotes (exact) or quotes scaled from them. */
type Served = { subscription: ReplaySubscription; exact: boolean }

type Timer = { strategy: SafeStrategy; intervalMs: number; due: number }

export type BacktestReplayParameters = {
  start: number
  /** Clock ms, exclusive; undefined: after the last quote. */
  to: number | undefined
  /** The `from` asked for (undefined: the first quote). */
  from: number | undefined
  clock: ManualClock
  book: ReplayBook
  venue: SimulatedVenue
  valuation: Valuation
  dispatch: StrategyDispatch
  strategies: readonly SafeStrategy[]
  maxQuoteAgeMs: number
  reconcileMs: number
  /** Filled with the decimals of every token the quotes show, by `"chainId:token"` (lowercase). */
  decimals: Map<string, number>
  onProgress?: ((progress: { now: number; from: number; to: number; quotes: number }) => void) | undefined
}

/** What the replay leaves for the results. */
export type BacktestReplayResult = {
  quotes: number
  end: number
  /** Stretches without any quote longer than maxQuoteAgeSeconds: nothing could be priced or filled in them. */
  gaps: readonly { from: number; to: number }[]
  subscriptions: readonly ReplaySubscription[]
  /** Subscribed keys that heard the quote set's own quotes, and those that heard quotes scaled from another size. */
  exactKeys: ReadonlySet<string>
  scaledKeys: ReadonlySet<string>
}

/**
 * The replay of a backtest: quotes into the book and to their subscribers, the clock to each quote's time, and
 * whatever falls due on the way (the venue's settlements, the strategies' timers, reconciliation ticks, equity
 * samples) run at its own time, in time order. A class rather than closures: a process that runs many backtests (an
 * optimiser's trials, a benchmark's runs) meets the same methods in its next run, compiled with the dispatch, book and
 * strategies' quote paths inlined, instead of new closures it would be deoptimised for and compile again.
 */
export class BacktestReplay {
  /** A strategy's intent was executed since the last reconciliation tick (the journal changed). */
  journalChanged = false

  readonly #p: BacktestReplayParameters
  readonly #subscriptions: ReplaySubscription[]
  /** Per request id: who hears its quotes (null: nobody). Recomputed when a new request appears (rare). */
  #served: (Served[] | null)[] = []
  readonly #known: ReplayRequest[] = []
  readonly #exactKeys = new Set<string>()
  readonly #scaledKeys = new Set<string>()
  readonly #watchingBalances: boolean
  readonly #timers: Timer[]
  #nextReconcile: number
  #started = false
  readonly #opening: { block: QuoteBlock; index: number; subscribers: Served[] }[] = []
  readonly #gaps: { from: number; to: number }[] = []
  /** What the replay waits for before it goes on: the strategies' start, what falls due, or what a quote caused. */
  #waitFor: Promise<void> | undefined

  constructor(parameters: BacktestReplayParameters) {
    this.#p = parameters
    const { strategies, start, reconcileMs } = parameters
    this.#subscriptions = strategies.flatMap((strategy) =>
      strategy.subscriptions.map((request) => ({ strategy, request, key: quoteRequestKey(request), pair: bookPairOf(request) })),
    )
    this.#watchingBalances = strategies.some((strategy) => strategy.balances.length > 0)
    this.#nextReconcile = start + reconcileMs
    this.#timers = strategies.flatMap((strategy) =>
      strategy.timers.map((intervalMs) => ({ strategy, intervalMs, due: start + intervalMs })),
    )
  }

  /** Replays the source's quotes from `start` (and the book's lead-in before it), then runs what falls due up to the end. */
  async run(source: QuoteReplaySource): Promise<BacktestReplayResult> {
    const { start, from, to, clock, venue, maxQuoteAgeMs, onProgress } = this.#p
    let quotes = 0
    let last = start
    // With --from, the quotes of the last maxQuoteAgeSeconds before it fill the book first (not heard by anyone):
    // the market as it stood when the run starts.
    for await (const block of source.blocks({ from: from === undefined ? start : start - maxQuoteAgeMs, to })) {
      let index = 0
      for (;;) {
        index = this.#replay(block, index)
        if (this.#waitFor === undefined) break
        const pending = this.#waitFor
        this.#waitFor = undefined
        await pending
      }
      const length = block.length
      quotes += length
      last = clock.now()
      if (onProgress && (quotes & 0xffff) < length) onProgress({ now: last, from: start, to: to ?? last, quotes })
    }
    if (!this.#started) await this.#startStrategies()
    const end = to ?? last + 1
    await this.#advanceTo(end - 1)
    venue.runDue()
    await this.reconcileTick()
    return { quotes, end, gaps: this.#gaps, subscriptions: this.#subscriptions, exactKeys: this.#exactKeys, scaledKeys: this.#scaledKeys }
  }

  /**
   * A reconciliation tick, as live: what the venue journaled since the last one reaches the strategies, then the
   * watched balances (every tick, changed or not: a strategy may plan from them at any time).
   */
  reconcileTick(): Promise<void> | undefined {
    const { venue, dispatch } = this.#p
    const changed = venue.takeChanged() || this.journalChanged
    this.journalChanged = false
    if (changed) dispatch.deliverOrderEvents()
    if (this.#watchingBalances) return this.#deliverBalances().then(() => dispatch.settle())
    return dispatch.busy() ? dispatch.settle() : undefined
  }

  /**
   * A subscription hears the recorded request of its key; when the quote set has no such size, it hears the nearest
   * recorded size of its pair (by ratio), scaled to its own amount (and is warned about).
   */
  #discover(request: ReplayRequest): void {
    const known = this.#known
    known.push(request)
    const { chainId, srcToken, destToken } = request.request
    this.#p.decimals.set(`${chainId}:${srcToken.toLowerCase()}`, request.srcDecimals)
    this.#p.decimals.set(`${request.request.destChainId ?? chainId}:${destToken.toLowerCase()}`, request.destDecimals)
    const keys = new Set(known.map((item) => item.key))
    const next: (Served[] | null)[] = []
    for (const item of known) next[item.id] = null
    for (const subscription of this.#subscriptions) {
      let target: ReplayRequest | undefined
      const exact = keys.has(subscription.key)
      if (exact) {
        target = known.find((item) => item.key === subscription.key)
        this.#exactKeys.add(subscription.key)
      } else {
        const pairKey = pairKeyOf(subscription.pair)
        let best = Number.POSITIVE_INFINITY
        for (const item of known) {
          if (pairKeyOf(bookPairOf(item.request)) !== pairKey || item.request.amount === 0n) continue
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
    this.#served = next
  }

  #scaledQuote(block: QuoteBlock, index: number, subscription: ReplaySubscription): Quote | undefined {
    const { book, clock, maxQuoteAgeMs } = this.#p
    this.#scaledKeys.add(subscription.key)
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

  #deliverBalances(): Promise<void> {
    const { venue, dispatch, clock } = this.#p
    return dispatch.deliverBalances(
      async (requests) => requests.map((request) => ({ ...request, amount: venue.balanceOf(request.chainId, request.token) })),
      clock.now(),
    )
  }

  // --- time: everything due up to a quote's time runs at its own time, in order ---

  /**
   * The next reconciliation tick with work to do: the grid stays start + k × interval, but ticks with nothing to
   * deliver (no journal change, no watched balances) are passed over without running.
   */
  #nextReconcileAt(): number {
    if (!(this.#watchingBalances || this.journalChanged || this.#p.venue.hasChanged())) return Number.POSITIVE_INFINITY
    const now = this.#p.clock.now()
    const reconcileMs = this.#p.reconcileMs
    if (this.#nextReconcile < now) this.#nextReconcile += Math.ceil((now - this.#nextReconcile) / reconcileMs) * reconcileMs
    return this.#nextReconcile
  }

  /** When the next thing falls due: a reconciliation tick, an equity sample, the venue's next event (given) or a timer. */
  #nextDueAt(venueNext: number | undefined): number {
    let next = Math.min(this.#nextReconcileAt(), this.#p.valuation.nextSampleAt())
    if (venueNext !== undefined && venueNext < next) next = venueNext
    for (const timer of this.#timers) if (timer.due < next) next = timer.due
    return next
  }

  /** The clock to `time`, running what falls due on the way; a promise only when something does. */
  #advanceTo(time: number): Promise<void> | undefined {
    if (this.#nextDueAt(this.#p.venue.nextEventAt()) > time) {
      const clock = this.#p.clock
      if (time > clock.now()) clock.set(time)
      return undefined
    }
    return this.#runDueUntil(time)
  }

  /** Runs every instant due up to `time`, in order; a promise only when a handler or an intent is still running. */
  #runDueUntil(time: number): Promise<void> | undefined {
    const { venue, clock } = this.#p
    for (;;) {
      const venueNext = venue.nextEventAt()
      const next = this.#nextDueAt(venueNext)
      if (next > time) break
      if (next > clock.now()) clock.set(next)
      if (venueNext !== undefined && venueNext <= next) venue.runDue()
      const waiting = this.#timersDue(next, 0)
      if (waiting !== undefined) return waiting.then(() => this.#reconcileAndSample(next)).then(() => this.#runDueUntil(time))
      const reconciling = this.#reconcileAndSample(next)
      if (reconciling !== undefined) return reconciling.then(() => this.#runDueUntil(time))
    }
    if (time > clock.now()) clock.set(time)
    return undefined
  }

  /** The timers due at `next`, from the `from`-th on, each settled before the next one fires. */
  #timersDue(next: number, from: number): Promise<void> | undefined {
    const timers = this.#timers
    const dispatch = this.#p.dispatch
    for (let at = from; at < timers.length; at++) {
      const timer = timers[at] as Timer
      if (timer.due > next) continue
      while (timer.due <= next) timer.due += timer.intervalMs
      dispatch.timer(timer.strategy, timer.intervalMs)
      if (dispatch.busy()) return dispatch.settle().then(() => this.#timersDue(next, at + 1))
    }
    return undefined
  }

  /** The reconciliation tick and the valuation's sample when due at `next`. */
  #reconcileAndSample(next: number): Promise<void> | undefined {
    if (this.#nextReconcileAt() <= next) {
      const reconcileMs = this.#p.reconcileMs
      while (this.#nextReconcile <= next) this.#nextReconcile += reconcileMs
      const reconciling = this.reconcileTick()
      if (reconciling !== undefined) return reconciling.then(() => this.#sampleDue(next))
    }
    this.#sampleDue(next)
    return undefined
  }

  #sampleDue(next: number): void {
    const valuation = this.#p.valuation
    if (valuation.nextSampleAt() <= next) valuation.sample(this.#p.venue)
  }

  // --- the replay ---

  /** The quote to its subscribers; a promise only when something it caused is still running (a handler, an intent). */
  #deliverQuote(block: QuoteBlock, index: number, subscribers: readonly Served[]): Promise<void> | undefined {
    const dispatch = this.#p.dispatch
    // One read-only view of the recorded quote, shared by every subscriber of its own key.
    let view: Quote | undefined
    for (const { subscription, exact } of subscribers) {
      if (exact) view ??= frozenQuote(block.quote(index)) as Quote
      const quote = exact ? view : this.#scaledQuote(block, index, subscription)
      if (quote) dispatch.quote(quote)
    }
    return dispatch.busy() ? dispatch.settle() : undefined
  }

  /**
   * Strategies start once the first instant's quotes are in the book, so that what they ask for at start can be
   * priced; those quotes reach them right after their start.
   */
  async #startStrategies(): Promise<void> {
    this.#started = true
    const dispatch = this.#p.dispatch
    await dispatch.start()
    await this.#deliverBalances()
    await dispatch.settle()
    for (const { block, index, subscribers } of this.#opening.splice(0)) await this.#deliverQuote(block, index, subscribers)
  }

  /**
   * Replays the block's quotes from `index` on, synchronously, until one needs something asynchronous to finish first
   * (left in #waitFor); returns the index to go on from once it has (the block's length when done).
   */
  #replay(block: QuoteBlock, index: number): number {
    const { start, clock, book, venue, maxQuoteAgeMs } = this.#p
    const length = block.length
    for (; index < length; index++) {
      const time = block.time(index)
      if (time < start) {
        const id = book.update(block, index)
        if (this.#served[id] === undefined) this.#discover(block.request(index))
        continue
      }
      if (time > clock.now()) {
        // The clock stands at the previous quote's time here (or at the start).
        if (!this.#started) {
          this.#waitFor = this.#startStrategies()
          return index
        }
        if (time - clock.now() > maxQuoteAgeMs) this.#gaps.push({ from: clock.now(), to: time })
        const due = this.#advanceTo(time)
        if (due) {
          // Back at this quote once it is done, the clock at its time.
          this.#waitFor = due
          return index
        }
      }
      const id = book.update(block, index)
      if (book.isWatched(id)) venue.quoted(id)
      if (this.#served[id] === undefined) this.#discover(block.request(index))
      const subscribers = this.#served[id]
      if (subscribers === null || subscribers === undefined) continue
      if (!this.#started) this.#opening.push({ block, index, subscribers })
      else {
        const delivered = this.#deliverQuote(block, index, subscribers)
        if (delivered) {
          this.#waitFor = delivered
          return index + 1
        }
      }
    }
    return length
  }
}
