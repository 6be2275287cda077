import type { Address } from 'viem'
import {
  type DeepReadonly,
  decimalToRaw,
  formatScaled,
  type MakerBalance,
  type MakerFirmQuote,
  type ReferencePrice,
} from '../../src/index.js'
import type { MarketMakerPair, MarketMakerToken } from './market-maker-config.js'

// The off switch of the market maker: each check returns why the maker must not quote, or undefined.

/** The reference is missing or older than `maxAgeSeconds` of clock time. */
export function checkReference(
  pairId: string,
  reference: DeepReadonly<ReferencePrice> | undefined,
  { now, maxAgeSeconds }: { now: number; maxAgeSeconds: number },
): string | undefined {
  if (reference?.mid === undefined || reference.at === undefined) {
    const error = reference?.lastError === undefined ? '' : ` (last error: ${reference.lastError})`
    return `no reference price for ${pairId} yet${error}`
  }
  // The reason names no age: it stays the same while the reference stays stale, so the book changes once.
  if (now - reference.at > maxAgeSeconds * 1000) {
    const error = reference.lastError === undefined ? '' : `; last error: ${reference.lastError}`
    return `reference price of ${pairId} is stale: older than ${maxAgeSeconds} s${error}`
  }
  return undefined
}

/** The wallet holds less than the token's floor or more than its cap. */
export function checkInventory(
  tokenId: string,
  token: DeepReadonly<MarketMakerToken>,
  balance: DeepReadonly<MakerBalance>,
  chainId: number,
): string | undefined {
  const held = () => formatScaled(balance.balance, token.decimals)
  if (token.minBalance !== undefined && balance.balance < decimalToRaw(token.minBalance, token.decimals)) {
    return `risk limit: inventory of ${tokenId} on chain ${chainId} is ${held()}, below the floor ${token.minBalance}`
  }
  if (token.maxBalance !== undefined && balance.balance > decimalToRaw(token.maxBalance, token.decimals)) {
    return `risk limit: inventory of ${tokenId} on chain ${chainId} is ${held()}, above the cap ${token.maxBalance}`
  }
  return undefined
}

/**
 * The firm quotes of the pair over its window reach `maxFirmNotional` (whole quote tokens). A quote counts with its
 * filled amount once filled, nothing once expired unfilled, and its whole quoted amount while it may still be filled.
 */
export function checkFirmNotional(
  pairId: string,
  pair: DeepReadonly<MarketMakerPair>,
  tokens: { chainId: number; base: Address; quote: Address; quoteDecimals: number },
  { now, firmQuotes }: { now: number; firmQuotes: DeepReadonly<MakerFirmQuote[]> },
): string | undefined {
  const limit = pair.maxFirmNotional
  if (limit === undefined) return undefined
  const since = now - limit.windowSeconds * 1000
  const same = (a: Address, b: Address) => a.toLowerCase() === b.toLowerCase()
  let notional = 0n
  for (const quote of firmQuotes) {
    if (quote.chainId !== tokens.chainId || quote.quotedAt < since) continue
    const makerSellsQuote = same(quote.makerAsset, tokens.quote) && same(quote.takerAsset, tokens.base)
    const makerSellsBase = same(quote.makerAsset, tokens.base) && same(quote.takerAsset, tokens.quote)
    if (!makerSellsQuote && !makerSellsBase) continue
    const quoted = makerSellsQuote ? quote.makerAmount : quote.takerAmount
    const filled = makerSellsQuote ? quote.filledMakerAmount : quote.filledTakerAmount
    notional += quote.status === 'filled' ? filled : quote.status === 'expired' ? 0n : quoted
  }
  const cap = decimalToRaw(limit.amount, tokens.quoteDecimals)
  if (notional < cap) return undefined
  return (
    `risk limit: firm quotes of ${pairId} over the last ${limit.windowSeconds} s reach ` +
    `${formatScaled(notional, tokens.quoteDecimals)} ${pair.quote}, the limit is ${limit.amount}`
  )
}
