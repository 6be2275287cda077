import type { z } from 'zod'
import type { IntentContentInput } from '../domain/intents/intent-schema.js'
import type { Quote, QuoteRequest } from '../feed/quote.js'
import type { Logger } from '../log/logger.js'
import { checkStrategyDefinition, type strategyApiVersion } from './check-strategy-definition.js'
import type { DeepReadonly } from './frozen-copy.js'
import type {
  BalanceRequest,
  BalancesEvent,
  FillEvent,
  IntentResultEvent,
  OrderUpdateEvent,
  RefundEvent,
  TimerEvent,
} from './strategy-events.js'

type WithoutStrategy<T> = T extends unknown ? Omit<T, 'strategy'> : never

/** An intent as a strategy writes it: any intent kind, without `strategy` (the runtime sets it), `id` or `createdAt`. */
export type StrategyIntentContent = WithoutStrategy<IntentContentInput>

/**
 * One intent asked for. `key` tells apart intents of identical content that are meant to be distinct (a period, a
 * slice, a signal id): the same key and content give the same intent id after a restart, so nothing is done twice.
 */
export type IntentRequest = { key: string; intent: StrategyIntentContent }

/** What a handler returns: one intent, several, or nothing; possibly asynchronously. */
// biome-ignore lint/suspicious/noConfusingVoidType: a handler that returns nothing has return type void; undefined alone refuses it
export type StrategyOutput = IntentRequest | readonly IntentRequest[] | undefined | void
export type StrategyResultOf = StrategyOutput | Promise<StrategyOutput>

/** JSON-persisted key-value state of one strategy, kept in the journal. Writes are kept only if the handler succeeds. */
export type StrategyState = {
  /** The stored value as parsed JSON (bigints come back as decimal strings), or undefined. */
  get(key: string): unknown
  /** The stored value parsed with `schema`, or undefined when nothing is stored; a value that does not parse throws. */
  get<Schema extends z.ZodType>(key: string, schema: Schema): z.output<Schema> | undefined
  /** Stores a JSON value (bigints as decimal strings). */
  set(key: string, value: unknown): void
  /** Returns whether a value was there. */
  delete(key: string): boolean
}

/** What every handler receives beside its event. */
export type StrategyContext<Config> = {
  /** The strategy's name, as it appears on its intents. */
  strategy: string
  /** The config, parsed by configSchema and frozen. */
  config: DeepReadonly<Config>
  /** Unix ms of the injected clock; never read Date.now() in a strategy. */
  now: () => number
  state: StrategyState
  /** A child of the bot's logger, bound to this strategy. */
  logger: Logger
  /**
   * The id the runtime gives an intent request of this strategy (the same key and content give the same id): to
   * recognise its orders in order updates and its intents in intent results. Throws StrategyError for a bad request.
   */
  intentIdOf: (request: IntentRequest) => string
}

/**
 * A strategy: turns quotes, order updates, fills, refunds and timers into intents. It never signs or sends; the
 * executor does. Every handler is optional except `subscriptions`.
 */
export type StrategyDefinition<Schema extends z.ZodType = z.ZodType> = {
  apiVersion: typeof strategyApiVersion
  /** Letters, digits, `.`, `_` and `-`; stamped on every intent and log line. */
  name: string
  /** Parses the strategy's config section; the handlers' `config` is its output type. */
  configSchema: Schema
  /** The quotes this strategy needs priced (the feed polls each once, whoever asks). */
  subscriptions: (config: DeepReadonly<z.output<Schema>>) => readonly QuoteRequest[]
  /** Intervals in ms at which `onTimer` fires. */
  timers?: (config: DeepReadonly<z.output<Schema>>) => readonly number[]
  /** Tokens whose wallet balances `onBalances` receives, per chain. */
  balances?: (config: DeepReadonly<z.output<Schema>>) => readonly BalanceRequest[]
  onStart?: (context: StrategyContext<z.output<Schema>>) => StrategyResultOf
  onQuote?: (quote: DeepReadonly<Quote>, context: StrategyContext<z.output<Schema>>) => StrategyResultOf
  onOrderUpdate?: (event: DeepReadonly<OrderUpdateEvent>, context: StrategyContext<z.output<Schema>>) => StrategyResultOf
  onFill?: (event: DeepReadonly<FillEvent>, context: StrategyContext<z.output<Schema>>) => StrategyResultOf
  onRefund?: (event: DeepReadonly<RefundEvent>, context: StrategyContext<z.output<Schema>>) => StrategyResultOf
  onTimer?: (event: DeepReadonly<TimerEvent>, context: StrategyContext<z.output<Schema>>) => StrategyResultOf
  /** Each of its intents once executed (not journaled: after a restart, `state` is the strategy's memory). */
  onIntentResult?: (event: DeepReadonly<IntentResultEvent>, context: StrategyContext<z.output<Schema>>) => StrategyResultOf
  onBalances?: (event: DeepReadonly<BalancesEvent>, context: StrategyContext<z.output<Schema>>) => StrategyResultOf
  onStop?: (context: StrategyContext<z.output<Schema>>) => StrategyResultOf
}

/**
 * Declares a strategy; the config type is inferred from `configSchema`, so handlers get a typed, frozen config.
 * Checks the definition's shape now (throws StrategyLoadError naming what is wrong).
 *
 * @example
 * export default defineStrategy({
 *   apiVersion: 1,
 *   name: 'buy-the-dip',
 *   configSchema: z.object({ chainId: z.number(), usdc: addressSchema, weth: addressSchema, amount: z.string() }),
 *   subscriptions: (config) => [{ source: 'market', chainId: config.chainId, srcToken: config.usdc,
 *     destToken: config.weth, amount: BigInt(config.amount), side: 'SELL' }],
 *   onQuote: (quote, { config, state }) => {
 *     if (state.get('bought') || quote.destAmount < 400_000_000_000_000n) return
 *     state.set('bought', true)
 *     return { key: 'dip', intent: { kind: 'swap', chainId: config.chainId, srcToken: config.usdc,
 *       destToken: config.weth, amount: config.amount, side: 'SELL', maxSlippageBps: 50, maxPriceImpactPercent: 1 } }
 *   },
 * })
 */
export function defineStrategy<Schema extends z.ZodType>(definition: StrategyDefinition<Schema>): StrategyDefinition<Schema> {
  checkStrategyDefinition(definition, definition.name)
  return definition
}
