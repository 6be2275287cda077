import type { Address } from 'viem'
import type { MakerPair, MakerToken } from '../protocol/maker-wire.js'
import type { PriceGrid } from '../protocol/price-grid.js'

/** What one chain's base URL serves. Token and pair ids are the maker's own (a symbol, `BASE/QUOTE`). */
export type MakerChainSnapshot = {
  chainId: number
  tokens: Readonly<Record<string, MakerToken>>
  pairs: Readonly<Record<string, MakerPair>>
  /** `{}` for a pair being retired (listed in pairs, not quoted). */
  prices: Readonly<Record<string, PriceGrid>>
  blacklist: readonly Address[]
  /** Set while the maker must not quote (stale reference, risk limit hit, stopping): `/prices` fails with it. */
  offReason: string | undefined
  /** Clock ms of the last update of `prices`. */
  pricedAt: number
}

/** What changed in one update, for the WebSocket channel (which sends changes only). */
export type MakerBookChange = {
  chainId: number
  tokens?: Record<string, MakerToken>
  pairs?: Record<string, MakerPair>
  /** Changed grids; a removed side is absent from its grid, a retired pair is `{}`. */
  prices?: Record<string, PriceGrid>
  /** Newly added addresses only. */
  blacklist?: Address[]
  /** The maker switched off (`/prices` fails from now on) or back on. */
  off?: string | null
}

export type MakerBookUpdate = Partial<Pick<MakerChainSnapshot, 'tokens' | 'pairs' | 'prices' | 'blacklist'>>

/**
 * The maker's current offer per chain: written by the maker runtime (from its strategy), read by the maker server
 * on every request. Listeners hear each change (the WebSocket channel). Synchronous and in memory.
 */
export class MakerBook {
  readonly #chains = new Map<number, MakerChainSnapshot>()
  readonly #listeners = new Set<(change: MakerBookChange) => void>()

  constructor(chainIds: readonly number[]) {
    for (const chainId of chainIds) {
      this.#chains.set(chainId, {
        chainId,
        tokens: {},
        pairs: {},
        prices: {},
        blacklist: [],
        offReason: 'no prices yet',
        pricedAt: 0,
      })
    }
  }

  get chainIds(): number[] {
    return [...this.#chains.keys()]
  }

  snapshot(chainId: number): MakerChainSnapshot {
    const chain = this.#chains.get(chainId)
    if (chain === undefined) throw new Error(`maker book: chain ${chainId} is not served`)
    return chain
  }

  /** Replaces what `update` carries; prices also clear the off state and stamp `pricedAt`. */
  update(chainId: number, update: MakerBookUpdate, nowMs: number): void {
    const previous = this.snapshot(chainId)
    const change: MakerBookChange = { chainId }
    const next: MakerChainSnapshot = { ...previous }
    if (update.tokens !== undefined) {
      next.tokens = update.tokens
      const changed = changedEntries(previous.tokens, update.tokens)
      if (changed !== undefined) change.tokens = changed
    }
    if (update.pairs !== undefined) {
      next.pairs = update.pairs
      const changed = changedEntries(previous.pairs, update.pairs)
      if (changed !== undefined) change.pairs = changed
    }
    const prices = update.prices
    if (prices !== undefined) {
      next.prices = prices
      next.pricedAt = nowMs
      // A pair no longer quoted is sent as {} (both sides removed).
      const removed = Object.keys(previous.prices).filter((pair) => !(pair in prices))
      const changed = { ...changedEntries(previous.prices, prices), ...Object.fromEntries(removed.map((pair) => [pair, {}])) }
      if (Object.keys(changed).length > 0) change.prices = changed
      if (previous.offReason !== undefined) {
        next.offReason = undefined
        change.off = null
      }
    }
    if (update.blacklist !== undefined) {
      next.blacklist = [...new Set(update.blacklist)]
      const known = new Set(previous.blacklist)
      const added = next.blacklist.filter((address) => !known.has(address))
      if (added.length > 0) change.blacklist = added
    }
    this.#chains.set(chainId, next)
    if (Object.keys(change).length > 1) this.#emit(change)
  }

  /** Switches the maker off on every chain (or one): `/prices` fails with `reason` until the next prices update. */
  setOff(reason: string, chainId?: number): void {
    for (const chain of chainId === undefined ? this.#chains.values() : [this.snapshot(chainId)]) {
      if (chain.offReason === reason) continue
      this.#chains.set(chain.chainId, { ...chain, offReason: reason })
      this.#emit({ chainId: chain.chainId, off: reason })
    }
  }

  onChange(listener: (change: MakerBookChange) => void): () => void {
    this.#listeners.add(listener)
    return () => this.#listeners.delete(listener)
  }

  #emit(change: MakerBookChange): void {
    for (const listener of this.#listeners) listener(change)
  }
}

function changedEntries<T>(previous: Readonly<Record<string, T>>, next: Readonly<Record<string, T>>): Record<string, T> | undefined {
  const changed: Record<string, T> = {}
  for (const [key, value] of Object.entries(next)) {
    if (JSON.stringify(previous[key]) !== JSON.stringify(value)) changed[key] = value
  }
  return Object.keys(changed).length > 0 ? changed : undefined
}
