import {
  type DeepReadonly,
  decimalToRaw,
  type MakerChainOffer,
  type MakerPair,
  type MakerQuoteParameters,
  type MakerToken,
  type PriceGrid,
} from '../../src/index.js'
import { buildGrid } from './build-grid.js'
import { inventorySkewBps } from './inventory-skew.js'
import type { MarketMakerChain, MarketMakerConfig } from './market-maker-config.js'
import { checkFirmNotional, checkInventory, checkReference } from './risk-checks.js'

/** The id of a pair's reference among the strategy's references. */
export function referenceId(chainId: number, pairId: string): string {
  return `${chainId}:${pairId}`
}

type QuoteInput = MakerQuoteParameters<MarketMakerConfig>

/**
 * One chain's offer: every configured token and pair, a grid per active pair (a retired pair `{}`), or off with the
 * first reason found (a balance not read yet, an inventory limit, a missing or stale reference, the firm notional).
 * Pairs draw on the wallet in config order: a token shared by two pairs is not offered twice.
 */
export function quoteChain(chainId: number, chain: DeepReadonly<MarketMakerChain>, input: QuoteInput): MakerChainOffer {
  const { config, now, references, balances, firmQuotes } = input
  const balanceOf = new Map(
    balances.filter((balance) => balance.chainId === chainId).map((balance) => [balance.token.toLowerCase(), balance] as const),
  )
  const tokens: Record<string, MakerToken> = {}
  const available = new Map<string, bigint>()
  for (const [id, token] of Object.entries(chain.tokens)) {
    const balance = balanceOf.get(token.address.toLowerCase())
    if (balance === undefined) return { chainId, off: `balance of ${id} on chain ${chainId} not read yet` }
    const limit = checkInventory(id, token, balance, chainId)
    if (limit !== undefined) return { chainId, off: limit }
    const symbol = token.symbol ?? id
    tokens[id] = {
      symbol,
      name: token.name ?? symbol,
      description: token.description,
      address: token.address,
      decimals: token.decimals,
      type: 'ERC20',
    }
    available.set(id, balance.available)
  }
  const pairs: Record<string, MakerPair> = {}
  const prices: Record<string, PriceGrid> = {}
  for (const [id, pair] of Object.entries(chain.pairs)) {
    const base = chain.tokens[pair.base]
    const quote = chain.tokens[pair.quote]
    const baseBalance = base && balanceOf.get(base.address.toLowerCase())
    const quoteBalance = quote && balanceOf.get(quote.address.toLowerCase())
    if (!base || !quote || !baseBalance || !quoteBalance) return { chainId, off: `pair ${id} names a token that is not configured` }
    if (chain.retire.includes(id)) {
      pairs[id] = { base: pair.base, quote: pair.quote, liquidityUSD: 0 }
      prices[id] = {}
      continue
    }
    const reference = references[referenceId(chainId, id)]
    const stale = checkReference(id, reference, { now, maxAgeSeconds: config.maxReferenceAgeSeconds })
    if (stale !== undefined || reference?.mid === undefined) return { chainId, off: stale ?? `no reference price for ${id}` }
    const firm = checkFirmNotional(
      id,
      pair,
      { chainId, base: base.address, quote: quote.address, quoteDecimals: quote.decimals },
      { now, firmQuotes },
    )
    if (firm !== undefined) return { chainId, off: firm }
    const skewBps = inventorySkewBps({
      baseBalance: baseBalance.balance,
      quoteBalance: quoteBalance.balance,
      mid: reference.mid,
      baseDecimals: base.decimals,
      quoteDecimals: quote.decimals,
      targetBaseShareBps: pair.targetBaseShareBps,
      maxSkewBps: pair.maxSkewBps,
    })
    const built = buildGrid({
      mid: reference.mid,
      skewBps,
      levels: pair.levels,
      spreadBps: pair.spreadBps,
      stepBps: pair.stepBps,
      size: decimalToRaw(pair.size, base.decimals),
      sizeGrowthBps: pair.sizeGrowthBps,
      baseAvailable: available.get(pair.base) ?? 0n,
      quoteAvailable: available.get(pair.quote) ?? 0n,
      baseDecimals: base.decimals,
      quoteDecimals: quote.decimals,
      priceDecimals: pair.priceDecimals ?? quote.decimals,
    })
    available.set(pair.base, (available.get(pair.base) ?? 0n) - built.baseUsed)
    available.set(pair.quote, (available.get(pair.quote) ?? 0n) - built.quoteUsed)
    prices[id] = built.grid
    pairs[id] = { base: pair.base, quote: pair.quote, liquidityUSD: liquidityUsd(built.grid, pair.quoteUsd) }
  }
  return { chainId, tokens, pairs, prices, blacklist: [...chain.blacklist] }
}

/** Quote value of both sides at their prices, in USD, rounded to whole dollars (informational). */
function liquidityUsd(grid: PriceGrid, quoteUsd: string): number {
  const levels = [...(grid.bids ?? []), ...(grid.asks ?? [])]
  const quoteValue = levels.reduce((sum, [price, amount]) => sum + Number(price) * Number(amount), 0)
  return Math.round(quoteValue * Number(quoteUsd))
}
