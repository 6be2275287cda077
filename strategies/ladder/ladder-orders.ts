import type { Address } from 'viem'
import { gridPrice, type LadderGrid, quoteAmountAt } from './ladder-prices.js'

export type LadderSide = 'sell' | 'buy'

/** What the level orders depend on (the parsed config has all of it). */
export type LadderTerms = LadderGrid & {
  chainId: number
  /** The ladder's own side: sell levels sell base for quote, buy levels buy base with quote. */
  side: LadderSide
  base: { address: Address; decimals: number }
  quote: { address: Address; decimals: number }
  /** Raw base units every level trades. */
  sizePerLevel: bigint
  validitySeconds: number
  onFill: 'flip' | 'retire'
}

/** One level's LIMIT order: the source and destination of a Delta SELL, at the grid step `gridIndex`. */
export type LevelOrder = {
  srcToken: Address
  destToken: Address
  srcAmount: bigint
  /** The least accepted for srcAmount. */
  destAmount: bigint
  gridIndex: number
}

/** The opposite side. */
export function oppositeSide(side: LadderSide): LadderSide {
  return side === 'sell' ? 'buy' : 'sell'
}

/**
 * Where level `index` trades on `side`. On its own side a level trades at its own price; flipped, one step further
 * from the market it was placed against: a sell level flips to a buy one step below, a buy level to a sell one
 * step above, so each round trip earns one step on the level's size.
 */
export function gridIndexOf(terms: Pick<LadderTerms, 'side'>, index: number, side: LadderSide): number {
  if (side === terms.side) return index
  return terms.side === 'sell' ? index - 1 : index + 1
}

/**
 * Level `index`'s order on `side`, or undefined when that grid step has no positive price. A sell gives sizePerLevel
 * base for at least its quote value rounded up; a buy spends its quote value rounded down for at least sizePerLevel
 * base: rounding never trades worse than the level's price.
 */
export function levelOrder(terms: LadderTerms, index: number, side: LadderSide): LevelOrder | undefined {
  const gridIndex = gridIndexOf(terms, index, side)
  const price = gridPrice(terms, gridIndex)
  if (price === undefined) return undefined
  const conversion = { baseAmount: terms.sizePerLevel, price, baseDecimals: terms.base.decimals, quoteDecimals: terms.quote.decimals }
  return side === 'sell'
    ? {
        srcToken: terms.base.address,
        destToken: terms.quote.address,
        srcAmount: terms.sizePerLevel,
        destAmount: quoteAmountAt({ ...conversion, rounding: 'up' }),
        gridIndex,
      }
    : {
        srcToken: terms.quote.address,
        destToken: terms.base.address,
        srcAmount: quoteAmountAt({ ...conversion, rounding: 'down' }),
        destAmount: terms.sizePerLevel,
        gridIndex,
      }
}

/** Every (level, side) the ladder can trade: each level on its own side, and flipped too when onFill is flip. */
export function levelIndices(terms: Pick<LadderTerms, 'levels' | 'side' | 'onFill'>): { index: number; side: LadderSide }[] {
  const sides: LadderSide[] = terms.onFill === 'flip' ? [terms.side, oppositeSide(terms.side)] : [terms.side]
  return Array.from({ length: terms.levels }, (_, index) => sides.map((side) => ({ index, side }))).flat()
}
