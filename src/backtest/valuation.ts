import type { RecordedQuotesHeader } from '../feed/recorded-quote.js'
import type { Clock } from '../time/clock.js'
import type { ReplayBook } from './replay-book.js'
import type { ReplayRequest } from './replay-source.js'
import { BacktestQuoteError } from './simulated-api.js'

export type PairTokens = { base: { symbol: string; tokens: string[] }; quote: { symbol: string; tokens: string[] } }

/**
 * One point of the curves, values in the quote token: the wallet (`equity`, net of gas), the part of it held in the
 * base token (`baseValue`, for exposure), the two benchmarks, and the pair's mid price.
 */
export type ValuationSample = {
  t: number
  equity: number
  baseValue: number
  /** The starting balances, untouched. */
  holdStart: number
  /** The whole starting value put in the base token at the first price. */
  buyAndHold: number
  price: number
}

const sampleFields = ['t', 'equity', 'baseValue', 'holdStart', 'buyAndHold', 'price'] as const

/** One Float64Array per field of sampleFields, in its order. */
type SampleColumns = [Float64Array, Float64Array, Float64Array, Float64Array, Float64Array, Float64Array]

/**
 * The samples as one column of floats per field, grown by doubling: a replay keeps its samples to the end, and as
 * objects (with a boxed number per field) every one of them would be copied by each young-generation collection.
 * `samples()` makes the objects once asked for (the results, at the end), until the next sample.
 */
function createSampleColumns() {
  let capacity = 64
  let columns = sampleFields.map(() => new Float64Array(capacity))
  let length = 0
  let made: ValuationSample[] | undefined
  return {
    get length(): number {
      return length
    },
    push(t: number, equity: number, baseValue: number, holdStart: number, buyAndHold: number, price: number): void {
      if (length === capacity) {
        capacity *= 2
        columns = columns.map((column) => {
          const grown = new Float64Array(capacity)
          grown.set(column)
          return grown
        })
      }
      const [ts, equities, baseValues, holdStarts, buyAndHolds, prices] = columns as SampleColumns
      ts[length] = t
      equities[length] = equity
      baseValues[length] = baseValue
      holdStarts[length] = holdStart
      buyAndHolds[length] = buyAndHold
      prices[length] = price
      length += 1
      made = undefined
    },
    /** Halves the samples, keeping the first and every other one after it. */
    keepEveryOther(): void {
      let kept = 0
      for (let index = 0; index < length; index += 2, kept++) for (const column of columns) column[kept] = column[index] as number
      length = kept
      made = undefined
    },
    samples(): readonly ValuationSample[] {
      if (made === undefined) {
        const [t, equity, baseValue, holdStart, buyAndHold, price] = columns as SampleColumns
        made = Array.from({ length }, (_, index) => ({
          t: t[index] as number,
          equity: equity[index] as number,
          baseValue: baseValue[index] as number,
          holdStart: holdStart[index] as number,
          buyAndHold: buyAndHold[index] as number,
          price: price[index] as number,
        }))
      }
      return made
    },
  }
}

/** What buy-and-hold starts from: the starting balances' value at the first price, and the base units it buys. */
export type BuyAndHoldStart = { startValue: number; firstPrice: number; units: number }

type TokenKind = { side: 'base' | 'quote' | undefined; unit: number }

const unknownKind: TokenKind = { side: undefined, unit: 1 }

type Wallet = { balances: () => ReadonlyMap<string, bigint>; inTransit: () => ReadonlyMap<string, bigint>; gasUsd: () => number }

export type Valuation = ReturnType<typeof createValuation>

/**
 * The pair results are valued in, from the config or else from the quote set's header (`base` and `quote` as
 * "SYMBOL 0xaddress" on `chainId`, plus `bridgeChainId` / `bridgeToken` when it holds crosschain quotes of the quote token).
 */
export function pairOf(configured: PairTokens | undefined, header: RecordedQuotesHeader, file: string): PairTokens {
  if (configured) return { base: lower(configured.base), quote: lower(configured.quote) }
  const meta = header.meta ?? {}
  const parse = (value: unknown) => (typeof value === 'string' ? /^(\S+)\s+(0x[0-9a-fA-F]{40})$/.exec(value) : null)
  const base = parse(meta.base)
  const quote = parse(meta.quote)
  const chainId = Number(meta.chainId)
  if (!base || !quote || !Number.isInteger(chainId)) {
    throw new BacktestQuoteError(
      `${file}: the header does not name the pair (meta.base, meta.quote, meta.chainId); set backtest.pair in the config, e.g. base: { symbol: WETH, tokens: ["1:0xC02a…"] }`,
    )
  }
  const quoteTokens = [`${chainId}:${(quote[2] as string).toLowerCase()}`]
  const bridgeChain = Number(meta.bridgeChainId)
  const bridgeToken = parse(meta.bridgeToken)
  if (Number.isInteger(bridgeChain) && bridgeToken) quoteTokens.push(`${bridgeChain}:${(bridgeToken[2] as string).toLowerCase()}`)
  return {
    base: { symbol: base[1] as string, tokens: [`${chainId}:${(base[2] as string).toLowerCase()}`] },
    quote: { symbol: quote[1] as string, tokens: quoteTokens },
  }
}

/** Base and quote units valued in the quote token at `price` (quote per base). */
function valueAt({ base, quote }: { base: number; quote: number }, price: number): number {
  return quote + base * price
}

function lower(token: { symbol: string; tokens: string[] }) {
  return { symbol: token.symbol, tokens: token.tokens.map((item) => item.toLowerCase()) }
}

/**
 * Values the wallet in the pair's quote token at the replay's mid price (the mean of the latest quotes of the pair in
 * both directions, the smallest recorded size, Market first), and samples equity, the part of it in the base token,
 * both benchmarks and the price at regular clock intervals: at most twice `samples` points whatever the number of
 * quotes.
 */
export function createValuation({
  book,
  clock,
  pair,
  from,
  to,
  samples,
  decimalsOf,
  initial,
}: {
  book: ReplayBook
  clock: Clock
  pair: PairTokens
  from: number
  to: number | undefined
  samples: number
  decimalsOf: (tokenKey: string) => number | undefined
  /** The wallet at the start: what holding means. */
  initial: ReadonlyMap<string, bigint>
}) {
  const baseTokens = new Set(pair.base.tokens)
  const quoteTokens = new Set(pair.quote.tokens)
  const points = createSampleColumns()
  // Without a known end, sampling starts every minute and halves its points (doubling the step) whenever they reach
  // twice `samples`: memory stays bounded whatever the length of the replay.
  let step = to === undefined ? 60_000 : Math.max(1, Math.floor((to - from) / samples))
  let nextSample = from
  const startBalances = new Map(initial)
  let weighted = 0
  let weightedMs = 0
  let lastPrice: number | undefined
  let lastPriceAt = from
  /** The requests the price is read from, each with whether it sells the base token (its price is dest per src). */
  let references: { request: ReplayRequest; baseIsSrc: boolean }[] | undefined
  const kinds = new Map<string, TokenKind>()
  let buyAndHold: BuyAndHoldStart | undefined
  const unvalued = new Set<string>()

  function referenceRequests(): { request: ReplayRequest; baseIsSrc: boolean }[] {
    if (references && references.length > 0) return references
    const candidates = book.requests().filter((request) => {
      const src = `${request.request.chainId}:${request.request.srcToken.toLowerCase()}`
      const dest = `${request.request.destChainId ?? request.request.chainId}:${request.request.destToken.toLowerCase()}`
      return (baseTokens.has(src) && quoteTokens.has(dest)) || (quoteTokens.has(src) && baseTokens.has(dest))
    })
    const rank = (request: ReplayRequest) => (request.request.source === 'market' ? 0 : 1)
    candidates.sort((a, b) => rank(a) - rank(b) || (a.request.amount < b.request.amount ? -1 : 1))
    const pick: { request: ReplayRequest; baseIsSrc: boolean }[] = []
    for (const direction of [true, false]) {
      const found = candidates.find(
        (request) => baseTokens.has(`${request.request.chainId}:${request.request.srcToken.toLowerCase()}`) === direction,
      )
      if (found) pick.push({ request: found, baseIsSrc: direction })
    }
    references = pick
    return pick
  }

  /** Quote per base at the clock, or undefined before the pair's first quote. */
  function price(): number | undefined {
    let sum = 0
    let count = 0
    for (const { request, baseIsSrc } of referenceRequests()) {
      const quote = book.latest(request.id)
      if (!quote) continue
      const src = quote.srcNumber / 10 ** request.srcDecimals
      const dest = quote.destNumber / 10 ** request.destDecimals
      if (!(src > 0 && dest > 0)) continue
      sum += baseIsSrc ? dest / src : src / dest
      count += 1
    }
    return count === 0 ? lastPrice : sum / count
  }

  /**
   * How a balance key counts (base or quote, in units of 10^decimals, or not valued): classified once its decimals are
   * known (the replay learns them as it meets the tokens' requests).
   */
  function kindOf(key: string): TokenKind {
    let kind = kinds.get(key)
    if (kind === undefined) {
      const decimals = decimalsOf(key)
      if (decimals === undefined) return unknownKind
      kind = { side: baseTokens.has(key) ? 'base' : quoteTokens.has(key) ? 'quote' : undefined, unit: 10 ** decimals }
      kinds.set(key, kind)
    }
    return kind
  }

  function worthOf(balances: ReadonlyMap<string, bigint>, at: number): { value: number; base: number; quote: number } {
    const units = unitsOf(balances)
    return { value: valueAt(units, at), base: units.base, quote: units.quote }
  }

  /** The balances in base and quote units (a balance of another token is listed in `unvalued`). */
  function unitsOf(balances: ReadonlyMap<string, bigint>): { base: number; quote: number } {
    let base = 0
    let quote = 0
    if (balances.size === 0) return { base, quote }
    balances.forEach((amount, key) => {
      if (amount === 0n) return
      const kind = kindOf(key)
      if (kind.side === undefined) unvalued.add(key)
      else if (kind.side === 'base') base += Number(amount) / kind.unit
      else quote += Number(amount) / kind.unit
    })
    return { base, quote }
  }

  /**
   * The starting balances in units, counted again only once a token's decimals have become known (`kinds` grew):
   * every sample values them, and they never change.
   */
  let startUnits: { base: number; quote: number; kindsKnown: number } | undefined
  function startUnitsNow(): { base: number; quote: number } {
    if (startUnits === undefined || startUnits.kindsKnown !== kinds.size) {
      const { base, quote } = unitsOf(startBalances)
      startUnits = { base, quote, kindsKnown: kinds.size }
    }
    return startUnits
  }

  return {
    pair,
    nextSampleAt: (): number => nextSample,
    /** Call after the clock moved: keeps the time-weighted price and, when due, a point of each curve. */
    sample(wallet: Wallet): void {
      const now = clock.now()
      const current = price()
      if (current !== undefined) {
        if (lastPrice !== undefined) {
          weighted += lastPrice * (now - lastPriceAt)
          weightedMs += now - lastPriceAt
        }
        lastPrice = current
        lastPriceAt = now
      }
      while (nextSample <= now) nextSample += step
      if (current === undefined) return
      if (points.length >= 2 * samples) {
        points.keepEveryOther()
        step *= 2
        nextSample = now + step
      }
      const held = worthOf(wallet.balances(), current)
      const moving = unitsOf(wallet.inTransit())
      const start = startUnitsNow()
      const holdStart = valueAt(start, current)
      // Buy-and-hold buys at the first price the pair has: units = start value / first price.
      buyAndHold ??= { startValue: holdStart, firstPrice: current, units: holdStart / current }
      points.push(
        now,
        held.value + valueAt(moving, current) - wallet.gasUsd(),
        (held.base + moving.base) * current,
        holdStart,
        buyAndHold.units * current,
        current,
      )
    },
    price,
    points: (): readonly ValuationSample[] => points.samples(),
    /** Undefined until the pair has a price. */
    buyAndHoldStart: (): BuyAndHoldStart | undefined => buyAndHold,
    averagePrice: (): number | null => (weightedMs > 0 ? weighted / weightedMs : (lastPrice ?? null)),
    holdings: (balances: ReadonlyMap<string, bigint>, at: number) => worthOf(balances, at),
    startBalances: (): ReadonlyMap<string, bigint> => startBalances,
    isBase: (key: string) => baseTokens.has(key.toLowerCase()),
    isQuote: (key: string) => quoteTokens.has(key.toLowerCase()),
    unvalued: (): readonly string[] => [...unvalued],
  }
}
