import type { PriceGridWire } from '../../protocol/maker-wire.js'

/**
 * A maker's cached price grids, each pair stamped with the wall-clock ms it was last received. A `/prices` answer
 * (or the stream's first message) is complete and refreshes every pair; a stream change refreshes only the pairs it
 * carries, so each pair ages on its own (the maker re-sends a pair to refresh it).
 */
export class MakerLevels {
  readonly #entries = new Map<string, { grid: PriceGridWire; at: number }>()

  /**
   * Takes a complete answer received at `at`: pairs it lacks are dropped, the others replaced. A pair received after
   * `since` (a stream change newer than the request that produced this answer) is kept as it is.
   */
  replaceAll(grids: Readonly<Record<string, PriceGridWire>>, at: number, since = at): void {
    for (const [pairId, entry] of this.#entries) if (entry.at < since) this.#entries.delete(pairId)
    for (const [pairId, grid] of Object.entries(grids)) {
      if (!this.#entries.has(pairId)) this.#entries.set(pairId, { grid, at })
    }
  }

  /** Takes the grids of a stream change: each replaces its pair (a missing side is cleared, `{}` quotes neither). */
  update(grids: Readonly<Record<string, PriceGridWire>>, at: number): void {
    for (const [pairId, grid] of Object.entries(grids)) this.#entries.set(pairId, { grid, at })
  }

  /** The grids received at or after `oldest`. */
  receivedSince(oldest: number): Record<string, PriceGridWire> {
    const grids: Record<string, PriceGridWire> = {}
    for (const [pairId, entry] of this.#entries) if (entry.at >= oldest) grids[pairId] = entry.grid
    return grids
  }

  /** When the least recently received pair arrived; undefined when no pair is cached. */
  oldestAt(): number | undefined {
    let oldest: number | undefined
    for (const entry of this.#entries.values()) if (oldest === undefined || entry.at < oldest) oldest = entry.at
    return oldest
  }
}
