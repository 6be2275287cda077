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
  if (value instanceof FrozenQuoteView) return value as DeepReadonly<T>
  if (typeof value === 'object' && value !== null && deeplyFrozen.has(value)) return value as DeepReadonly<T>
  return deepFreeze(structuredClone(value))
}

/**
 * A read-only view of a quote for strategies, built without walking its answer: the request and the amounts are
 * frozen now, the service's answer (a large route) the first time a strategy reads `answer`, a getter of the view.
 * The answer is not even read from the quote before then (a replayed quote parses its answer only when asked).
 * Strategies share the view.
 */
class FrozenQuoteView {
  readonly request: Quote['request']
  readonly key: string
  readonly srcAmount: bigint
  readonly destAmount: bigint
  readonly requestedAt: number
  readonly receivedAt: number
  readonly #quote: Quote
  #answer: Quote['answer'] | undefined

  constructor(quote: Quote) {
    this.request = deepFreeze(quote.request) as Quote['request']
    this.key = quote.key
    this.srcAmount = quote.srcAmount
    this.destAmount = quote.destAmount
    this.requestedAt = quote.requestedAt
    this.receivedAt = quote.receivedAt
    this.#quote = quote
    Object.freeze(this)
  }

  get answer(): Quote['answer'] {
    if (this.#answer === undefined) this.#answer = deepFreeze(this.#quote.answer) as Quote['answer']
    return this.#answer
  }
}

export function frozenQuote(quote: Quote): DeepReadonly<Quote> {
  return new FrozenQuoteView(quote) as unknown as DeepReadonly<Quote>
}
