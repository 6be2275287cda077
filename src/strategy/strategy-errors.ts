import { BaseError } from '../errors/base.js'

/**
 * A strategy's config does not match its configSchema. Operational: the strategy is not started (the bot reports it at
 * startup); the user fixes the fields named.
 */
export class StrategyConfigError extends BaseError {
  override name = 'StrategyConfigError' as const
  readonly strategy: string
  readonly problems: readonly string[]

  constructor({ strategy, problems }: { strategy: string; problems: string[] }) {
    super(`strategy "${strategy}" has an invalid config: ${problems.join('; ')}`, {
      details: { strategy, problems },
      hint: `fix ${problems.length === 1 ? 'this field' : 'these fields'} in the config of strategy "${strategy}"`,
      errorClass: 'operational',
    })
    this.strategy = strategy
    this.problems = problems
  }
}

export type StrategyHandlerName =
  | 'subscriptions'
  | 'timers'
  | 'balances'
  | 'onStart'
  | 'onQuote'
  | 'onOrderUpdate'
  | 'onFill'
  | 'onRefund'
  | 'onTimer'
  | 'onBalances'
  | 'onIntentResult'
  | 'onStop'

/**
 * A strategy's handler threw, rejected, or returned something that is not a valid intent. Operational: contained by
 * createSafeStrategy, logged under the strategy and counted; the event's intents and state writes are dropped; after
 * `maxConsecutiveFailures` in a row the strategy is paused (the bot keeps running) until resumed.
 */
export class StrategyError extends BaseError {
  override name = 'StrategyError' as const
  readonly strategy: string
  readonly handler: StrategyHandlerName

  constructor({ strategy, handler, reason, cause }: { strategy: string; handler: StrategyHandlerName; reason: string; cause?: unknown }) {
    super(`strategy "${strategy}" failed in ${handler}: ${reason}`, {
      details: { strategy, handler },
      cause,
      hint: `fix strategy "${strategy}"; it is paused after too many consecutive failures and receives nothing until resumed`,
      errorClass: 'operational',
    })
    this.strategy = strategy
    this.handler = handler
  }
}

/**
 * A strategy reference in the config could not be loaded, or what it exports is not a strategy definition of a
 * supported apiVersion. Operational: the bot does not start; the user fixes the reference or the plugin.
 */
export class StrategyLoadError extends BaseError {
  override name = 'StrategyLoadError' as const
  readonly reference: string
  /** What is wrong, without the strategy's name. */
  readonly reason: string

  constructor({ reference, reason, hint, cause }: { reference: string; reason: string; hint: string; cause?: unknown }) {
    super(`cannot load strategy "${reference}": ${reason}`, { details: { reference }, cause, hint, errorClass: 'operational' })
    this.reference = reference
    this.reason = reason
  }
}
