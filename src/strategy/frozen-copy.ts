import type { Quote } from '../feed/quote.js'

/** A value no strategy can change: objects and arrays read-only all the way down. */
export type DeepReadonly<T> = T extends (...args: never[]) => unknown
  ? T
  : T extends readonly (infer Element)[]
    ? readonly DeepReadonly<Element>[]
    : T extends object
      ? { readonly [Key in keyof T]: DeepReadonly<T[Key]> }
      : T

/** Objects deepFreeze has frozen all the way down (a frozen object elsewhere may still hold mutable ones). */
const deeplyFrozen = new WeakSet<object>()

/** Freezes `value` and everything it reaches, in place. */
export function deepFreeze<T>(value: T): DeepReadonly<T> {
  if (typeof value === 'object' && value !== null && !deeplyFrozen.has(value)) {
    // Marked first, so a cycle ends here.
    deeplyFrozen.add(value)
    Object.freeze(value)
    for (const key of Reflect.ownKeys(value)) deepFreeze(Reflect.get(value, key))
  }
  return value as DeepReadonly<T>
}

/**
 * A deeply frozen copy: what a strategy receives, so a strategy that writes to its input throws (ES modules are
 * strict) and the caller's object stays as it was. structuredClone keeps bigints; plain data only. A value deepFreeze
 * already froze is given as it is: nobody can change it, so every strategy may share it (the bot freezes each quote
 * once for all its subscribers).
 */
export function freezeCopy<T>(value: T): DeepReadonly<T> {
  if (value instanceof ReadOnlyQuote) return value as DeepReadonly<T>
  if (typeof value === 'object' && value !== null && deeplyFrozen.has(value)) return value as DeepReadonly<T>
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
