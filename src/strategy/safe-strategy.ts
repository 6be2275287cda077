import type { z } from 'zod'
import type { Intent } from '../domain/intents/intent-schema.js'
import { issueMessage } from '../domain/wire-fields.js'
import { type Quote, type QuoteRequest, quoteRequestKey } from '../feed/quote.js'
import type { Logger } from '../log/logger.js'
import type { Clock } from '../time/clock.js'
import { HandlerState, type StrategyStateStore } from './buffered-state.js'
import type { StrategyDefinition, StrategyState } from './define-strategy.js'
import { type DeepReadonly, deepFreeze, freezeCopy } from './frozen-copy.js'
import { parseBalanceRequests, parseSubscriptions, parseTimers } from './quote-subscriptions.js'
import { StrategyConfigError, StrategyError, type StrategyHandlerName } from './strategy-errors.js'
import type { BalanceRequest, BalancesEvent, FillEvent, IntentResultEvent, OrderUpdateEvent, RefundEvent } from './strategy-events.js'
import { parseStrategyOutput } from './strategy-output.js'

export type CreateSafeStrategyParameters = {
  /** The strategy's config section as read (YAML, JSON): parsed here by the definition's configSchema. */
  config: unknown
  clock: Clock
  /** Where the strategy's state lives: the journal (or anything with its three strategy-state functions). */
  journal: StrategyStateStore
  /** The bot's logger; the strategy gets `logger.child({ strategy })`. */
  logger: Logger
  /** Failures in a row after which the strategy is paused. Default 5. */
  maxConsecutiveFailures?: number
}

export type StrategyStats = {
  /** Events given to a handler (whether it succeeded or not). */
  eventsHandled: number
  /** Events not delivered because the strategy was paused. */
  eventsSkipped: number
  /** Quotes of its subscriptions handed to it (delivered or skipped while paused; a strategy without onQuote gets them too). */
  quotesOffered: number
  intentsProduced: number
  failures: number
  consecutiveFailures: number
  paused: boolean
  /** Why it is paused: by pause() (the operator) or after `maxConsecutiveFailures`; null while it runs. */
  pausedBy: 'operator' | 'failures' | null
  lastError: StrategyError | null
}

/** The outcome of one event: intents to execute (possibly none), a contained failure, or no delivery. */
export type StrategyRun =
  | { outcome: 'handled'; intents: Intent[] }
  | { outcome: 'failed'; error: StrategyError; paused: boolean }
  | { outcome: 'skipped'; reason: 'paused' | 'not subscribed' }

export type SafeStrategy<Config = unknown> = {
  name: string
  config: DeepReadonly<Config>
  /** Validated: addresses checksummed, amounts bigint. */
  subscriptions: readonly QuoteRequest[]
  /** Intervals in ms for handleTimer. */
  timers: readonly number[]
  /** Tokens whose balances handleBalances expects. */
  balances: readonly BalanceRequest[]
  start: () => Promise<StrategyRun>
  /** Skipped unless the quote answers one of `subscriptions`. */
  handleQuote: (quote: Quote) => Promise<StrategyRun>
  /**
   * As handleQuote, with the run itself (no promise) when the strategy had nothing running and its handler answered
   * synchronously: how the dispatch delivers quotes.
   */
  offerQuote: (quote: Quote) => StrategyRun | Promise<StrategyRun>
  handleOrderUpdate: (event: OrderUpdateEvent) => Promise<StrategyRun>
  handleFill: (event: FillEvent) => Promise<StrategyRun>
  handleRefund: (event: RefundEvent) => Promise<StrategyRun>
  handleTimer: (intervalMs: number) => Promise<StrategyRun>
  /** As handleTimer, as offerQuote answers. */
  offerTimer: (intervalMs: number) => StrategyRun | Promise<StrategyRun>
  handleBalances: (event: BalancesEvent) => Promise<StrategyRun>
  handleIntentResult: (event: IntentResultEvent) => Promise<StrategyRun>
  stop: () => Promise<StrategyRun>
  pause: () => void
  /** Delivers events again, with the count of consecutive failures reset. */
  resume: () => void
  stats: () => StrategyStats
}

type LooseHandler = (...parameters: unknown[]) => unknown

const notSubscribed: StrategyRun = Object.freeze({ outcome: 'skipped', reason: 'not subscribed' })
const noIntents: Intent[] = Object.freeze([]) as unknown as Intent[]
/** A handler that asked for nothing (most quotes): one shared, read-only answer. */
const handledNothing: StrategyRun = Object.freeze({ outcome: 'handled', intents: noIntents })
/** The event of a handler that takes none (onStart, onStop). */
const noEvent = Symbol('no event')

function isThenable(value: unknown): value is PromiseLike<unknown> {
  if (value instanceof Promise) return true
  // Most handlers answer nothing or an array of intent requests: no `then` to look up along their prototypes.
  if (value === undefined || value === null || Array.isArray(value)) return false
  return typeof value === 'object' && typeof Reflect.get(value, 'then') === 'function'
}

/**
 * Runs a strategy in quarantine: its config is validated (StrategyConfigError names the strategy and the fields), its
 * inputs are frozen copies, its intents are validated and stamped by createIntent, and whatever it throws, rejects
 * or returns wrongly becomes a counted StrategyError instead of reaching the caller. After `maxConsecutiveFailures`
 * in a row it is paused and receives nothing until `resume()`. Events are delivered one at a time, in call order.
 * State written by a handler reaches the journal only if that handler succeeds.
 *
 * @example
 * const twap = createSafeStrategy(definition, { config: yaml.strategies.twap, clock, journal, logger })
 * const run = await twap.handleQuote(quote)
 * if (run.outcome === 'handled') for (const intent of run.intents) await executor.execute(intent)
 */
export function createSafeStrategy<Schema extends z.ZodType>(
  definition: StrategyDefinition<Schema>,
  { config: rawConfig, clock, journal, logger, maxConsecutiveFailures = 5 }: CreateSafeStrategyParameters,
): SafeStrategy<z.output<Schema>> {
  const { name } = definition
  const parsed = definition.configSchema.safeParse(rawConfig)
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.map(String).join('.') || '(config)'}: ${issueMessage(issue)}`)
    throw new StrategyConfigError({ strategy: name, problems })
  }
  const config = deepFreeze(parsed.data as z.output<Schema>)
  const subscriptions = deepFreeze(
    parseSubscriptions(
      name,
      callAtCreation(name, 'subscriptions', () => definition.subscriptions(config)),
    ),
  )
  const timers = deepFreeze(
    parseTimers(
      name,
      callAtCreation(name, 'timers', () => definition.timers?.(config) ?? []),
    ),
  )
  const balances = deepFreeze(
    parseBalanceRequests(
      name,
      callAtCreation(name, 'balances', () => definition.balances?.(config) ?? []),
    ),
  )
  const subscribedKeys = new Set(subscriptions.map((request) => quoteRequestKey(request)))
  return new QuarantinedStrategy({
    definition: definition as StrategyDefinition<z.ZodType>,
    config,
    subscriptions,
    timers,
    balances,
    subscribedKeys,
    clock,
    journal,
    log: logger.child({ strategy: name }),
    maxConsecutiveFailures,
  }) as SafeStrategy<z.output<Schema>>
}

/**
 * A SafeStrategy. A class rather than closures: a process that runs many backtests (an optimiser's trials, a
 * benchmark's runs) makes new strategies for each, and the replay's code, compiled with a strategy's methods inlined,
 * then meets the same functions again instead of new ones it would be deoptimised for and compiled again.
 */
class QuarantinedStrategy implements SafeStrategy {
  readonly name: string
  readonly config: DeepReadonly<unknown>
  readonly subscriptions: readonly QuoteRequest[]
  readonly timers: readonly number[]
  readonly balances: readonly BalanceRequest[]
  readonly #definition: StrategyDefinition<z.ZodType>
  readonly #subscribedKeys: ReadonlySet<string>
  readonly #clock: Clock
  readonly #maxConsecutiveFailures: number
  readonly #stats: StrategyStats = {
    eventsHandled: 0,
    eventsSkipped: 0,
    quotesOffered: 0,
    intentsProduced: 0,
    failures: 0,
    consecutiveFailures: 0,
    paused: false,
    pausedBy: null,
    lastError: null,
  }
  /** The last delivery still running or waiting (a handler that answered with a promise), undefined when none is. */
  #queue: Promise<StrategyRun> | undefined
  readonly #shared: { strategy: string; config: unknown; now: () => number; logger: Logger; journal: StrategyStateStore }
  readonly #intentIdOfHandler = new Map<StrategyHandlerName, (request: unknown) => string>()
  // The last handler's, without a lookup: events come in runs of one kind (quotes, mostly).
  #lastHandler: StrategyHandlerName | undefined
  #lastIntentIdOf: ((request: unknown) => string) | undefined
  readonly #onQuote: LooseHandler | undefined
  readonly #quoteIntentIdOf: (request: unknown) => string

  constructor(parts: {
    definition: StrategyDefinition<z.ZodType>
    config: DeepReadonly<unknown>
    subscriptions: readonly QuoteRequest[]
    timers: readonly number[]
    balances: readonly BalanceRequest[]
    subscribedKeys: ReadonlySet<string>
    clock: Clock
    journal: StrategyStateStore
    log: Logger
    maxConsecutiveFailures: number
  }) {
    this.name = parts.definition.name
    this.config = parts.config
    this.subscriptions = parts.subscriptions
    this.timers = parts.timers
    this.balances = parts.balances
    this.#definition = parts.definition
    this.#subscribedKeys = parts.subscribedKeys
    this.#clock = parts.clock
    this.#maxConsecutiveFailures = parts.maxConsecutiveFailures
    const { clock } = parts
    this.#shared = { strategy: this.name, config: parts.config, now: () => clock.now(), logger: parts.log, journal: parts.journal }
    this.#onQuote = Reflect.get(parts.definition, 'onQuote') as LooseHandler | undefined
    this.#quoteIntentIdOf = this.#intentIdOf('onQuote')
  }

  start(): Promise<StrategyRun> {
    return this.#deliver('onStart')
  }

  handleQuote(quote: Quote): Promise<StrategyRun> {
    return Promise.resolve(this.offerQuote(quote))
  }

  offerQuote(quote: Quote): StrategyRun | Promise<StrategyRun> {
    if (!this.#subscribedKeys.has(quote.key)) return notSubscribed
    const stats = this.#stats
    stats.quotesOffered += 1
    if (this.#queue !== undefined || stats.paused) return this.#deliverNow('onQuote', freezeCopy(quote))
    // Nothing running (most quotes of a replay): #invoke's steps for onQuote, without its lookups by handler name.
    // A strategy without onQuote takes the quote as handled, without the call.
    const onQuote = this.#onQuote
    if (onQuote === undefined) return handledNothing
    stats.eventsHandled += 1
    const handlerContext = new HandlerContext(this.#shared, this.#quoteIntentIdOf)
    let output: unknown
    try {
      output = onQuote(freezeCopy(quote), handlerContext)
    } catch (error) {
      return this.#failed('onQuote', error)
    }
    if (isThenable(output)) return this.#hold(this.#settled('onQuote', handlerContext, output))
    return this.#finish('onQuote', handlerContext, output)
  }

  handleOrderUpdate(event: OrderUpdateEvent): Promise<StrategyRun> {
    return this.#deliver('onOrderUpdate', freezeCopy(event))
  }

  handleFill(event: FillEvent): Promise<StrategyRun> {
    return this.#deliver('onFill', freezeCopy(event))
  }

  handleRefund(event: RefundEvent): Promise<StrategyRun> {
    return this.#deliver('onRefund', freezeCopy(event))
  }

  handleTimer(intervalMs: number): Promise<StrategyRun> {
    return Promise.resolve(this.offerTimer(intervalMs))
  }

  offerTimer(intervalMs: number): StrategyRun | Promise<StrategyRun> {
    // A timer event is flat (two numbers): frozen, it is read-only all the way down.
    return this.#deliverNow('onTimer', Object.freeze({ now: this.#clock.now(), intervalMs }))
  }

  handleBalances(event: BalancesEvent): Promise<StrategyRun> {
    return this.#deliver('onBalances', freezeCopy(event))
  }

  handleIntentResult(event: IntentResultEvent): Promise<StrategyRun> {
    return this.#deliver('onIntentResult', freezeCopy(event))
  }

  stop(): Promise<StrategyRun> {
    return this.#deliver('onStop')
  }

  pause(): void {
    if (this.#stats.paused) return
    this.#stats.paused = true
    this.#stats.pausedBy = 'operator'
  }

  resume(): void {
    this.#stats.paused = false
    this.#stats.pausedBy = null
    this.#stats.consecutiveFailures = 0
  }

  stats(): StrategyStats {
    return { ...this.#stats }
  }

  /**
   * Delivers one event, in call order: at once when no earlier delivery is still running, else after the last one.
   * A handler that answers synchronously is done with no promise made (a replay delivers millions of quotes); one
   * that answers with a promise holds the events behind it until it settles.
   */
  #deliverNow(handler: StrategyHandlerName, event: unknown = noEvent): StrategyRun | Promise<StrategyRun> {
    const queue = this.#queue
    const run = queue === undefined ? this.#invoke(handler, event) : queue.then(() => this.#invoke(handler, event))
    return run instanceof Promise ? this.#hold(run) : run
  }

  /** A delivery that answered with a promise: the events after it wait until it settles. */
  #hold(run: Promise<StrategyRun>): Promise<StrategyRun> {
    this.#queue = run
    const release = () => {
      if (this.#queue === run) this.#queue = undefined
    }
    void run.then(release, release)
    return run
  }

  // Events are copied when the caller hands them over, then wait their turn.
  #deliver(handler: StrategyHandlerName, event: unknown = noEvent): Promise<StrategyRun> {
    // A promise #deliverNow made comes back as it is.
    return Promise.resolve(this.#deliverNow(handler, event))
  }

  #intentIdOf(handler: StrategyHandlerName): (request: unknown) => string {
    if (handler === this.#lastHandler && this.#lastIntentIdOf !== undefined) return this.#lastIntentIdOf
    let of = this.#intentIdOfHandler.get(handler)
    if (!of) {
      const strategy = this.name
      const clock = this.#clock
      of = (request) => {
        const [intent] = parseStrategyOutput({ output: request, strategy, handler, clock })
        if (!intent) throw new StrategyError({ strategy, handler, reason: 'intentIdOf: expected one intent request' })
        return intent.id
      }
      this.#intentIdOfHandler.set(handler, of)
    }
    this.#lastHandler = handler
    this.#lastIntentIdOf = of
    return of
  }

  #invoke(handler: StrategyHandlerName, event: unknown): StrategyRun | Promise<StrategyRun> {
    const stats = this.#stats
    if (stats.paused) {
      stats.eventsSkipped += 1
      return { outcome: 'skipped', reason: 'paused' }
    }
    const callback = Reflect.get(this.#definition, handler) as LooseHandler | undefined
    if (callback === undefined) return handledNothing
    stats.eventsHandled += 1
    const handlerContext = new HandlerContext(this.#shared, this.#intentIdOf(handler))
    let output: unknown
    try {
      output = event === noEvent ? callback(handlerContext) : callback(event, handlerContext)
    } catch (error) {
      return this.#failed(handler, error)
    }
    if (isThenable(output)) return this.#settled(handler, handlerContext, output)
    return this.#finish(handler, handlerContext, output)
  }

  /** What a handler's promise settles to, finished as a synchronous answer is. */
  #settled(handler: StrategyHandlerName, handlerContext: HandlerContext, output: PromiseLike<unknown>): Promise<StrategyRun> {
    return Promise.resolve(output).then(
      (value) => this.#finish(handler, handlerContext, value),
      (error: unknown) => this.#failed(handler, error),
    )
  }

  /** What the handler answered: its intents, validated, and its state written; or a contained failure. */
  #finish(handler: StrategyHandlerName, handlerContext: HandlerContext, output: unknown): StrategyRun {
    try {
      // Most handlers ask for nothing: no intents to parse.
      const intents =
        output === undefined || (Array.isArray(output) && output.length === 0)
          ? noIntents
          : parseStrategyOutput({ output, strategy: this.name, handler, clock: this.#clock })
      handlerContext.commit()
      this.#stats.consecutiveFailures = 0
      if (intents.length === 0) return handledNothing
      this.#stats.intentsProduced += intents.length
      return { outcome: 'handled', intents }
    } catch (error) {
      return this.#failed(handler, error)
    }
  }

  #failed(handler: StrategyHandlerName, error: unknown): StrategyRun {
    return this.#recordFailure(
      error instanceof StrategyError
        ? error
        : new StrategyError({ strategy: this.name, handler, reason: error instanceof Error ? error.message : String(error), cause: error }),
    )
  }

  #recordFailure(error: StrategyError): StrategyRun {
    const stats = this.#stats
    const log = this.#shared.logger
    stats.failures += 1
    stats.consecutiveFailures += 1
    stats.lastError = error
    log.error({ err: error, handler: error.handler, consecutiveFailures: stats.consecutiveFailures }, 'strategy handler failed')
    if (stats.consecutiveFailures >= this.#maxConsecutiveFailures) {
      stats.paused = true
      stats.pausedBy = 'failures'
      log.error({ consecutiveFailures: stats.consecutiveFailures }, 'strategy paused after consecutive failures')
    }
    return { outcome: 'failed', error, paused: stats.paused }
  }
}

/**
 * What one handler call receives beside its event. A class, made once per event: the functions it hands out (`now`,
 * `intentIdOf`) are made once per strategy. It is its own `state` (the handler's buffered state: reads fall through to
 * the store, writes wait for the handler to succeed), so an event costs one object.
 */
class HandlerContext extends HandlerState {
  readonly strategy: string
  readonly config: unknown
  readonly now: () => number
  readonly logger: Logger
  readonly intentIdOf: (request: unknown) => string

  constructor(
    shared: { strategy: string; config: unknown; now: () => number; logger: Logger; journal: StrategyStateStore },
    intentIdOf: (request: unknown) => string,
  ) {
    super(shared.journal, shared.strategy)
    this.strategy = shared.strategy
    this.config = shared.config
    this.now = shared.now
    this.logger = shared.logger
    this.intentIdOf = intentIdOf
  }

  get state(): StrategyState {
    return this
  }
}

/** subscriptions and timers run once, at creation: a strategy that cannot say what it needs does not start. */
function callAtCreation(strategy: string, handler: StrategyHandlerName, call: () => unknown): unknown {
  try {
    return call()
  } catch (error) {
    throw new StrategyError({ strategy, handler, reason: error instanceof Error ? error.message : String(error), cause: error })
  }
}
