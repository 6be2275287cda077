import { ProtocolEncodingError } from './errors.js'

// The price grid of the market-maker interface (section 4 of the maker document, protocol-facts): levels are
// `[price, amount]` decimal strings, price = quote per one whole base token, amount = whole base tokens available.
// Selling base walks the bids, buying base walks the asks; an amount given in the quote token walks the opposite
// side inverted (price -> 1/price, amount -> price x amount). Levels are consumed in the order sent; a size beyond
// the side's depth has no quote. Everything here is exact (bigint rationals) and rounds against the user: an output
// down, an input up, so the maker and the service compute the same integers.

export type PriceLevel = readonly [price: string, amount: string]
export type PriceGrid = { readonly bids?: readonly PriceLevel[] | undefined; readonly asks?: readonly PriceLevel[] | undefined }

/** n / d with d > 0. */
type Ratio = { n: bigint; d: bigint }

const decimalPattern = /^(\d+)(?:\.(\d+))?$/

/** A non-negative decimal string as an exact ratio (throws ProtocolEncodingError otherwise). */
export function parseDecimal(value: string, where = 'value'): Ratio {
  const match = decimalPattern.exec(value)
  if (match === null) {
    throw new ProtocolEncodingError(`${where}: expected a non-negative decimal string such as "1850.25"`, { received: value })
  }
  const fraction = match[2] ?? ''
  return { n: BigInt(`${match[1]}${fraction}`), d: 10n ** BigInt(fraction.length) }
}

function compare(a: Ratio, b: Ratio): number {
  const left = a.n * b.d
  const right = b.n * a.d
  return left < right ? -1 : left > right ? 1 : 0
}

/**
 * Whether the grid is crossed: its highest bid is at or above its lowest ask (compared as numbers, over every level,
 * not only the first, so a badly ordered side cannot hide a cross).
 */
export function isGridCrossed(grid: PriceGrid): boolean {
  const bids = grid.bids ?? []
  const asks = grid.asks ?? []
  if (bids.length === 0 || asks.length === 0) return false
  const highestBid = bids.map(([price]) => parseDecimal(price)).reduce((best, price) => (compare(price, best) > 0 ? price : best))
  const lowestAsk = asks.map(([price]) => parseDecimal(price)).reduce((best, price) => (compare(price, best) < 0 ? price : best))
  return compare(highestBid, lowestAsk) >= 0
}

/** Which side of the pair the user pays in, and whether `amount` is what goes in (SELL) or what must come out (BUY). */
export type GridFillRequest = {
  /** The token the user gives. */
  src: 'base' | 'quote'
  /** SELL: `amount` is the exact source in; BUY: `amount` is the exact destination out. Raw units. */
  side: 'SELL' | 'BUY'
  amount: bigint
  baseDecimals: number
  quoteDecimals: number
}

export type GridFill =
  /** `amount` is the other side: destination out (SELL, rounded down) or source in (BUY, rounded up); raw units. */
  { ok: true; amount: bigint; levelsUsed: number } | { ok: false; reason: 'no-side' | 'insufficient-depth'; depth: bigint }

/**
 * Fills `amount` against the grid as the service does. The side walked, in the units the amount is given in:
 * sell base → bids; buy base (BUY with src quote) → asks; sell quote → asks inverted; buy quote (BUY with src base)
 * → bids inverted. `depth` (on failure) is the side's capacity in the unit of `amount`.
 */
export function fillFromGrid(grid: PriceGrid, { src, side, amount, baseDecimals, quoteDecimals }: GridFillRequest): GridFill {
  if (amount <= 0n) throw new ProtocolEncodingError('fillFromGrid: the amount must be positive', { amount })
  // The token `amount` is denominated in: the source on SELL, the destination on BUY.
  const amountIsBase = side === 'SELL' ? src === 'base' : src === 'quote'
  // The user receives base on asks (buys base) and quote on bids (sells base).
  const levels = (src === 'base' ? grid.bids : grid.asks) ?? []
  if (levels.length === 0) return { ok: false, reason: 'no-side', depth: 0n }
  const baseUnit = 10n ** BigInt(baseDecimals)
  const quoteUnit = 10n ** BigInt(quoteDecimals)
  let remaining = amount
  let depth = 0n
  // Exact sum of the other side, as a ratio over a growing denominator.
  let total: Ratio = { n: 0n, d: 1n }
  let levelsUsed = 0
  for (const [index, [priceText, amountText]] of levels.entries()) {
    const price = parseDecimal(priceText, `level ${index} price`)
    const size = parseDecimal(amountText, `level ${index} amount`)
    if (price.n === 0n) continue
    // Capacity of the level in raw units of `amount`: base × 10^bd, or (inverted) price × base × 10^qd; floored.
    const capacity = amountIsBase ? (size.n * baseUnit) / size.d : (price.n * size.n * quoteUnit) / (price.d * size.d)
    depth += capacity
    if (remaining === 0n || capacity === 0n) continue
    const taken = remaining < capacity ? remaining : capacity
    remaining -= taken
    levelsUsed += 1
    // Other side of `taken` raw units: base → quote is × price × 10^qd / 10^bd; quote → base is ÷ price × 10^bd / 10^qd.
    const part: Ratio = amountIsBase
      ? { n: taken * price.n * quoteUnit, d: price.d * baseUnit }
      : { n: taken * price.d * baseUnit, d: price.n * quoteUnit }
    total = { n: total.n * part.d + part.n * total.d, d: total.d * part.d }
    total = reduce(total)
  }
  if (remaining > 0n) return { ok: false, reason: 'insufficient-depth', depth }
  const other = side === 'SELL' ? total.n / total.d : (total.n + total.d - 1n) / total.d
  return { ok: true, amount: other, levelsUsed }
}

function reduce({ n, d }: Ratio): Ratio {
  const divisor = greatestCommonDivisor(n, d)
  return divisor <= 1n ? { n, d } : { n: n / divisor, d: d / divisor }
}

/** Of two integers (the sign of `a` ignored; `b` ≥ 0). */
export function greatestCommonDivisor(a: bigint, b: bigint): bigint {
  let x = a < 0n ? -a : a
  let y = b
  while (y !== 0n) [x, y] = [y, x % y]
  return x
}
