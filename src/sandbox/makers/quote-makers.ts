import { type Address, isAddressEqual } from 'viem'
import { fillFromGrid } from '../../protocol/price-grid.js'
import type { MakerPairOnChain } from './maker-catalogue.js'
import type { RegisteredMaker } from './registered-maker.js'

/** A maker's price for one trade, from its cached grid (the same integers its `/firm` computes). */
export type MakerFill = {
  maker: RegisteredMaker
  pair: MakerPairOnChain
  /** Which side of the pair the user pays in. */
  src: 'base' | 'quote'
  srcAmount: bigint
  destAmount: bigint
}

export type QuoteMakersParameters = {
  makers: readonly RegisteredMaker[]
  /** ERC-20 addresses (makers never quote the native asset). */
  srcToken: Address
  destToken: Address
  side: 'SELL' | 'BUY'
  /** Source amount on SELL, destination amount on BUY, raw units. */
  amount: bigint
  /** Makers that blacklisted this user are skipped. */
  user?: Address | undefined
}

/**
 * The best maker fill of a trade across the makers currently routable: the most out on SELL, the least in on BUY.
 * Either direction of a pair matches (base → quote walks the bids, quote → base the asks, quote-denominated amounts
 * through the book inversion of fillFromGrid). Undefined when no maker can fill the whole amount.
 */
export function quoteMakers({ makers, srcToken, destToken, side, amount, user }: QuoteMakersParameters): MakerFill | undefined {
  let best: MakerFill | undefined
  for (const maker of makers) {
    if (user !== undefined && maker.isBlacklisted(user)) continue
    const liquidity = maker.liquidity()
    if (!liquidity) continue
    for (const pair of liquidity.pairs) {
      const src = sideOf(pair, srcToken, destToken)
      const grid = liquidity.grids[pair.id]
      if (src === undefined || grid === undefined) continue
      const fill = fillSafely(grid, { src, side, amount, baseDecimals: pair.base.decimals, quoteDecimals: pair.quote.decimals })
      if (fill === undefined || fill <= 0n) continue
      const candidate: MakerFill =
        side === 'SELL'
          ? { maker, pair, src, srcAmount: amount, destAmount: fill }
          : { maker, pair, src, srcAmount: fill, destAmount: amount }
      if (!best || isBetter(candidate, best, side)) best = candidate
    }
  }
  return best
}

function sideOf(pair: MakerPairOnChain, srcToken: Address, destToken: Address): 'base' | 'quote' | undefined {
  if (isAddressEqual(pair.base.address, srcToken) && isAddressEqual(pair.quote.address, destToken)) return 'base'
  if (isAddressEqual(pair.quote.address, srcToken) && isAddressEqual(pair.base.address, destToken)) return 'quote'
  return undefined
}

function fillSafely(grid: Parameters<typeof fillFromGrid>[0], request: Parameters<typeof fillFromGrid>[1]): bigint | undefined {
  try {
    const fill = fillFromGrid(grid, request)
    return fill.ok ? fill.amount : undefined
  } catch {
    return undefined
  }
}

function isBetter(candidate: MakerFill, best: MakerFill, side: 'SELL' | 'BUY'): boolean {
  return side === 'SELL' ? candidate.destAmount > best.destAmount : candidate.srcAmount < best.srcAmount
}

/**
 * The same maker and pair's price for one whole token of the amount's unit (SELL: destination for one source token;
 * BUY: source for one destination token); undefined when its grid cannot fill that.
 */
export function unitMakerFill(fill: MakerFill, side: 'SELL' | 'BUY'): bigint | undefined {
  const grid = fill.maker.liquidity()?.grids[fill.pair.id]
  if (!grid) return undefined
  const unitToken =
    side === 'SELL' ? (fill.src === 'base' ? fill.pair.base : fill.pair.quote) : fill.src === 'base' ? fill.pair.quote : fill.pair.base
  return fillSafely(grid, {
    src: fill.src,
    side,
    amount: 10n ** BigInt(unitToken.decimals),
    baseDecimals: fill.pair.base.decimals,
    quoteDecimals: fill.pair.quote.decimals,
  })
}
