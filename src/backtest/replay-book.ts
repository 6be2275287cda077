import { BaseError } from '../errors/base.js'
import type { QuoteRequest } from '../feed/quote.js'
import type { Clock } from '../time/clock.js'
import type { QuoteBlock, ReplayRequest } from './replay-source.js'

/**
 * One request's amounts at a time, as the book prices it. Resting orders compare most quotes of their pair with
 * their limit in floating point: the floats are read from the block when asked for (a replay makes one of these per
 * priced update, and a float kept in a field is a boxed number of its own), the bigints too, kept once read.
 */
export class BookQuote {
  readonly request: ReplayRequest
  readonly block: QuoteBlock
  readonly index: number
  /** Every request's recorded size as a float, by request id (the book's). */
  readonly #amountNumbers: readonly number[]
  #srcAmount: bigint | undefined
  #destAmount: bigint | undefined

  /** `amountNumbers[request.id]` is Number(request.request.amount), made once per request by the book. */
  constructor(request: ReplayRequest, amountNumbers: readonly number[], block: QuoteBlock, index: number) {
    this.request = request
    this.block = block
    this.index = index
    this.#amountNumbers = amountNumbers
  }

  /** When the quote was recorded (clock ms). */
  get time(): number {
    return this.block.time(this.index)
  }

  /** The recorded size (its request's amount) as a float. */
  get amountNumber(): number {
    return this.#amountNumbers[this.request.id] as number
  }

  /** srcAmount as a float. */
  get srcNumber(): number {
    return this.block.srcAmountNumber(this.index)
  }

  /** destAmount as a float. */
  get destNumber(): number {
    return this.block.destAmountNumber(this.index)
  }

  get srcAmount(): bigint {
    this.#srcAmount ??= this.block.srcAmount(this.index)
    return this.#srcAmount
  }

  get destAmount(): bigint {
    this.#destAmount ??= this.block.destAmount(this.index)
    return this.#destAmount
  }
}

/** What a trade is priced against: the source, chains, tokens and side of a request, any amount. */
export type BookPair = {
  source: 'delta' | 'market'
  chainId: number
  destChainId: number
  srcToken: string
  destToken: string
  side: 'SELL' | 'BUY'
}

/** The book was asked for a quote stamped after the clock: the replay never shows the future. */
export class LookAheadError extends BaseError {
  override name = 'LookAheadError' as const
  constructor(at: number, now: number) {
    super(
      `a quote at ${new Date(at).toISOString()} was asked for at ${new Date(now).toISOString()}: quotes after the clock are not visible`,
      {
        details: { at, now },
        hint: 'A backtest sees only quotes stamped at or before its current time.',
        errorClass: 'fatal',
      },
    )
  }
}

/** Keys of the pairs seen, by object: a resting order asks for its pair's quotes on every update of it. */
const pairKeys = new WeakMap<BookPair, string>()

/** The pair as a string (tokens lowercase); the same pair object gets its key computed once. */
export function pairKeyOf(pair: BookPair): string {
  let key = pairKeys.get(pair)
  if (key === undefined) {
    key = [pair.source, pair.chainId, pair.destChainId, pair.srcToken.toLowerCase(), pair.destToken.toLowerCase(), pair.side].join(':')
    pairKeys.set(pair, key)
  }
  return key
}

const noQuotes: readonly BookQuote[] = Object.freeze([])

/**
 * The book pair a quote request prices: a unified recording's quote counts for the mode that answered it; the book
 * keeps it under `market` (its amounts are what the service would trade) unless the answer says delta.
 */
export function bookPairOf(request: QuoteRequest): BookPair {
  const { source, chainId, destChainId, srcToken, destToken, side } = request
  return { source: source === 'delta' ? 'delta' : 'market', chainId, destChainId: destChainId ?? chainId, srcToken, destToken, side }
}

/**
 * The replay's market state: the latest quote of every request seen so far, where nothing stamped after the clock can
 * be. Updating is two array stores (the hot path of a replay); amounts are read from the block only when priced.
 * A block stays referenced while it holds some request's latest quote.
 */
export function createReplayBook(clock: Clock): ReplayBook {
  return new ReplayBook(clock)
}

/**
 * The book createReplayBook makes. A class rather than closures: a process that runs many backtests (an optimiser's
 * trials, a benchmark's runs) makes a book for each, and the replay's code, compiled with the book's methods inlined,
 * then meets the same functions again instead of new ones it would be deoptimised for and compiled again.
 */
export class ReplayBook {
  readonly #clock: Clock
  readonly #blocks: (QuoteBlock | undefined)[] = []
  readonly #indexes: number[] = []
  readonly #requests: ReplayRequest[] = []
  /** The pairs seen, numbered as they appear: each one's requests (smallest size first), by its number. */
  readonly #pairNumbers = new Map<string, number>()
  readonly #pairRequests: ReplayRequest[][] = []
  /** The pair key and the pair number of each request id. */
  readonly #pairKeys: string[] = []
  readonly #pairOfId: number[] = []
  /** Each request's recorded size as a float (its quotes' `amountNumber`). */
  readonly #amountNumbers: number[] = []
  /** Each request's latest quote as read (amounts and all), until its next update. */
  readonly #read: (BookQuote | undefined)[] = []
  /**
   * Each pair's latest quotes as read (by pair number), one array per pair filled again after one of its requests
   * has a new quote (`stale`): callers read it at once and keep none of it.
   */
  readonly #latestOfPair: BookQuote[][] = []
  readonly #stale: boolean[] = []
  /** Request ids whose updates someone watches (resting orders priced against them). */
  readonly #watched: boolean[] = []
  #updates = 0

  constructor(clock: Clock) {
    this.#clock = clock
  }

  /** Records quote `index` of `block` as its request's latest; the caller has set the clock to its time. */
  update(block: QuoteBlock, index: number): number {
    const request = block.request(index)
    const id = request.id
    if (this.#requests[id] === undefined) this.#known(request)
    this.#blocks[id] = block
    this.#indexes[id] = index
    this.#read[id] = undefined
    this.#stale[this.#pairOfId[id] as number] = true
    this.#updates += 1
    return id
  }

  /** How many updates the book has had: what a reader of its quotes may keep an answer against. */
  get updates(): number {
    return this.#updates
  }

  isWatched(id: number): boolean {
    return this.#watched[id] === true
  }

  /** Marks the requests of a pair as watched (their updates are reported by the replay to whoever asked). */
  watch(pair: BookPair): void {
    const number = this.#pairNumbers.get(pairKeyOf(pair))
    for (const request of number === undefined ? [] : (this.#pairRequests[number] as ReplayRequest[])) this.#watched[request.id] = true
  }

  unwatchAll(): void {
    this.#watched.fill(false)
  }

  request(id: number): ReplayRequest | undefined {
    return this.#requests[id]
  }

  /** The pair key (pairKeyOf) of a request the book has seen. */
  pairKeyOfRequest(id: number): string | undefined {
    return this.#pairKeys[id]
  }

  /** The latest quote of one request, refused if stamped after the clock. */
  latest(id: number): BookQuote | undefined {
    return this.#quoteOf(id)
  }

  /**
   * The latest quotes of a pair, one per recorded size, smallest size first. Each is at or before the clock. The
   * array is the book's: read it now (the pair's next update refills it).
   */
  quotesOf(pair: BookPair): readonly BookQuote[] {
    const number = this.#pairNumbers.get(pairKeyOf(pair))
    if (number === undefined) return noQuotes
    // Orders resting on one pair all ask after the same update: the answer holds until the pair's next update.
    const quotes = this.#latestOfPair[number] as BookQuote[]
    if (!this.#stale[number]) return quotes
    quotes.length = 0
    for (const request of this.#pairRequests[number] as ReplayRequest[]) {
      const quote = this.#quoteOf(request.id)
      if (quote) quotes.push(quote)
    }
    this.#stale[number] = false
    return quotes
  }

  /** Every request seen so far. */
  requests(): readonly ReplayRequest[] {
    return this.#requests.filter((request) => request !== undefined)
  }

  #known(request: ReplayRequest): void {
    if (this.#requests[request.id] !== undefined) return
    this.#requests[request.id] = request
    this.#amountNumbers[request.id] = Number(request.request.amount)
    this.#watched[request.id] = false
    const key = pairKeyOf(bookPairOf(request.request))
    this.#pairKeys[request.id] = key
    let number = this.#pairNumbers.get(key)
    if (number === undefined) {
      number = this.#pairRequests.length
      this.#pairNumbers.set(key, number)
      this.#pairRequests.push([])
      this.#latestOfPair.push([])
    }
    this.#pairOfId[request.id] = number
    const group = this.#pairRequests[number] as ReplayRequest[]
    group.push(request)
    group.sort((a, b) => (a.request.amount < b.request.amount ? -1 : a.request.amount > b.request.amount ? 1 : 0))
    this.#stale[number] = true
  }

  #quoteOf(id: number): BookQuote | undefined {
    const now = this.#clock.now()
    const cached = this.#read[id]
    if (cached !== undefined) {
      if (cached.time > now) throw new LookAheadError(cached.time, now)
      return cached
    }
    const block = this.#blocks[id]
    if (block === undefined) return undefined
    const index = this.#indexes[id] as number
    const request = this.#requests[id] as ReplayRequest
    const time = block.time(index)
    if (time > now) throw new LookAheadError(time, now)
    const quote = new BookQuote(request, this.#amountNumbers, block, index)
    this.#read[id] = quote
    return quote
  }
}

/** A quote of `amount` on a pair: the recorded size closest to it (by ratio), scaled to it. */
export type ScaledQuote = {
  pair: BookPair
  /** The recorded quote it comes from. */
  from: BookQuote
  amount: bigint
  srcAmount: bigint
  destAmount: bigint
}

/**
 * Prices any amount from the pair's latest recorded quotes: the recorded size nearest to `amount` (by ratio, so 900
 * is nearer 1,000 than 100), its amounts scaled linearly and rounded against the trader (received down, paid up).
 * Returns undefined when the pair has no quote at or before the clock that is at most maxAgeMs old.
 */
export function priceFromBook(book: ReplayBook, pair: BookPair, amount: bigint, now: number, maxAgeMs: number): ScaledQuote | undefined {
  const best = nearestBookQuote(book, pair, amount, now, maxAgeMs)
  return best === undefined ? undefined : scaleBookQuote(best, pair, amount)
}

/** The recorded quote priceFromBook scales for `amount`: of the pair's quotes not older than maxAgeMs, the size nearest by ratio. */
export function nearestBookQuote(book: ReplayBook, pair: BookPair, amount: bigint, now: number, maxAgeMs: number): BookQuote | undefined {
  let best: BookQuote | undefined
  let bestDistance = Number.POSITIVE_INFINITY
  const wanted = Number(amount)
  for (const quote of book.quotesOf(pair)) {
    if (now - quote.time > maxAgeMs) continue
    const recorded = quote.amountNumber
    if (recorded === 0) continue
    const distance = Math.abs(Math.log(wanted / recorded))
    if (distance < bestDistance) {
      best = quote
      bestDistance = distance
    }
  }
  return best
}

/** A recorded quote's amounts scaled linearly to `amount`, rounded against the trader (received down, paid up). */
export function scaleBookQuote(from: BookQuote, pair: BookPair, amount: bigint): ScaledQuote {
  const recorded = from.request.request.amount
  if (pair.side === 'SELL') return { pair, from, amount, srcAmount: amount, destAmount: (from.destAmount * amount) / recorded }
  return { pair, from, amount, srcAmount: ceilDiv(from.srcAmount * amount, recorded), destAmount: amount }
}

/**
 * priceFromBook; when a same-chain pair has no recent quote of its own source, the other source's quotes of the pair:
 * a recording of what strategies subscribe to may hold one mode only (a Market guard quote, no Delta price).
 * `onFallback` is told which source priced it then, so the run can say so.
 */
export function priceFromEitherSource(
  book: ReplayBook,
  pair: BookPair,
  amount: bigint,
  now: number,
  maxAgeMs: number,
  onFallback?: ((asked: BookPair, used: BookPair['source']) => void) | undefined,
): ScaledQuote | undefined {
  const nearest = nearestFromEitherSource(book, pair, amount, now, maxAgeMs, onFallback)
  if (nearest === undefined) return undefined
  // A quote of the other source (the fallback) is priced as that source's pair, as priceFromBook would price it.
  const own = (nearest.request.request.source === 'delta' ? 'delta' : 'market') === pair.source
  return scaleBookQuote(nearest, own ? pair : otherSourceOf(pair), amount)
}

/**
 * nearestBookQuote with priceFromEitherSource's fallback to the other source's quotes of a same-chain pair (told to
 * `onFallback`). Nothing is scaled: a caller that only compares a price with a limit need not build amounts.
 */
export function nearestFromEitherSource(
  book: ReplayBook,
  pair: BookPair,
  amount: bigint,
  now: number,
  maxAgeMs: number,
  onFallback?: ((asked: BookPair, used: BookPair['source']) => void) | undefined,
): BookQuote | undefined {
  const own = nearestBookQuote(book, pair, amount, now, maxAgeMs)
  if (own !== undefined || pair.destChainId !== pair.chainId) return own
  const other = otherSourceOf(pair)
  const fallback = nearestBookQuote(book, other, amount, now, maxAgeMs)
  if (fallback !== undefined) onFallback?.(pair, other.source)
  return fallback
}

const otherSources = new WeakMap<BookPair, BookPair>()

/** The same pair priced from the other source's quotes; one object per pair object, so its key is made once too. */
function otherSourceOf(pair: BookPair): BookPair {
  let other = otherSources.get(pair)
  if (other === undefined) {
    other = { ...pair, source: pair.source === 'delta' ? 'market' : 'delta' }
    otherSources.set(pair, other)
  }
  return other
}

export function ceilDiv(numerator: bigint, denominator: bigint): bigint {
  return numerator === 0n ? 0n : (numerator - 1n) / denominator + 1n
}
