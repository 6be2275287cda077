import type { Address } from 'viem'
import type { MakerToken } from '../../protocol/maker-wire.js'
import type { PriceGrid } from '../../protocol/price-grid.js'
import type { MakerChainSnapshot } from '../maker-book.js'

// The book as the wire carries it (section 2 of the maker document): addresses lowercase, grids as sent. The HTTP
// bodies are serialized once per book version: MakerBook replaces a field's object on every update, so the
// field's identity is its version and a cached body is reused until the field changes.

export function tokensToWire(tokens: Readonly<Record<string, MakerToken>>): Record<string, MakerToken> {
  const wire: Record<string, MakerToken> = {}
  for (const [id, token] of Object.entries(tokens)) wire[id] = { ...token, address: token.address.toLowerCase() as Address }
  return wire
}

export function blacklistToWire(blacklist: readonly Address[]): string[] {
  return [...new Set(blacklist.map((address) => address.toLowerCase()))]
}

/** A grid with only the sides it has (a missing side is absent, not null). */
export function gridToWire(grid: PriceGrid): PriceGrid {
  const wire: { bids?: PriceGrid['bids']; asks?: PriceGrid['asks'] } = {}
  if (grid.bids !== undefined) wire.bids = grid.bids
  if (grid.asks !== undefined) wire.asks = grid.asks
  return wire
}

export function pricesToWire(prices: Readonly<Record<string, PriceGrid>>): Record<string, PriceGrid> {
  const wire: Record<string, PriceGrid> = {}
  for (const [pairId, grid] of Object.entries(prices)) wire[pairId] = gridToWire(grid)
  return wire
}

type Memo = { source: unknown; body: string }

/** The four GET bodies of one chain, re-serialized only when the book replaced the field behind them. */
export function createWireBodies() {
  const memos = new Map<string, Memo>()
  const memoize = (key: string, source: unknown, serialize: () => unknown): string => {
    const memo = memos.get(key)
    if (memo !== undefined && memo.source === source) return memo.body
    const body = JSON.stringify(serialize())
    memos.set(key, { source, body })
    return body
  }
  return {
    tokens: (snapshot: MakerChainSnapshot) => memoize('tokens', snapshot.tokens, () => ({ tokens: tokensToWire(snapshot.tokens) })),
    pairs: (snapshot: MakerChainSnapshot) => memoize('pairs', snapshot.pairs, () => ({ pairs: snapshot.pairs })),
    prices: (snapshot: MakerChainSnapshot) => memoize('prices', snapshot.prices, () => ({ prices: pricesToWire(snapshot.prices) })),
    blacklist: (snapshot: MakerChainSnapshot) =>
      memoize('blacklist', snapshot.blacklist, () => ({ blacklist: blacklistToWire(snapshot.blacklist) })),
  }
}
