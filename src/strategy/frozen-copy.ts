import { type DeepReadonly, deepFreeze, isDeeplyFrozen } from '../domain/deep-freeze.js'
import type { Quote } from '../feed/quote.js'

export type { DeepReadonly } from '../domain/deep-freeze.js'
export { deepFreeze } from '../domain/deep-freeze.js'

/**
 * A deeply frozen copy: what a strategy receives, so a strategy that writes to its input throws (ES modules are
 * strict) and the caller's object stays as it was. structuredClone keeps bigints; plain data only. A value deepFreeze
 * already froze is given as it is: nobody can change it, so every strategy may share it (the bot freezes each quote
 * once for all its subscribers).
 */
export function freezeCopy<T>(value: T): DeepReadonly<T> {
  if (value instanceof ReadOnlyQuote) return value as DeepReadonly<T>
  if (isDeeplyFrozen(value)) return value as DeepReadonly<T>
  return deepFreeze(structuredClone(value))
}

/**
 * A quote strategies may share as it is: a subclass sets its fields, freezes itself and its request (a flat object),
 * and gives its answer deeply frozen from the `answer` getter, read only when asked (a route is large, and a replayed
 * quote parses or synthesizes it only then). freezeCopy hands such a quote over without copying it.
 */
export abstract class ReadOnlyQuote {
  readonly request: Quote['request']
  readonly key: string
  readonly srcAmount: bigint
  readonly destAmount: bigint
  readonly requestedAt: number
  readonly receivedAt: number

  /** `request` must be frozen (a request is flat: frozen, it is read-only all the way down). */
  constructor(request: Quote['request'], key: string, srcAmount: bigint, destAmount: bigint, requestedAt: number, receivedAt: number) {
    this.request = request
    this.key = key
    this.srcAmount = srcAmount
    this.destAmount = destAmount
    this.requestedAt = requestedAt
    this.receivedAt = receivedAt
  }

  abstract get answer(): Quote['answer']
}

/**
 * A read-only view of a quote for strategies, built without walking its answer: the request and the amounts are
 * frozen now, the service's answer the first time a strategy reads `answer`. The answer is not even read from the
 * quote before then. Strategies share the view.
 */
class FrozenQuoteView extends ReadOnlyQuote {
  readonly #quote: Quote
  #answer: Quote['answer'] | undefined

  constructor(quote: Quote) {
    super(Object.freeze(quote.request), quote.key, quote.srcAmount, quote.destAmount, quote.requestedAt, quote.receivedAt)
    this.#quote = quote
    Object.freeze(this)
  }

  get answer(): Quote['answer'] {
    if (this.#answer === undefined) this.#answer = deepFreeze(this.#quote.answer) as Quote['answer']
    return this.#answer
  }
}

/** The quote as strategies see it: itself when it is already a ReadOnlyQuote, else a frozen view of it. */
export function frozenQuote(quote: Quote): DeepReadonly<Quote> {
  return (quote instanceof ReadOnlyQuote ? quote : new FrozenQuoteView(quote)) as unknown as DeepReadonly<Quote>
}
