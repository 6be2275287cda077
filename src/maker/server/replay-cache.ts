// Signatures accepted within the timestamp window, so that a captured request cannot be sent again while its
// timestamp is still fresh. An entry lives until its own timestamp leaves the window (timestamp + tolerance): after
// that the timestamp check refuses the request anyway. Expired entries are swept every quarter window (never per
// request, so a flood costs no more than one sweep per quarter window), and the cache never holds more than
// `maxEntries`: when full, new requests are refused until the next sweep (bounded memory under a flood).

export type ReplayCacheParameters = {
  toleranceMs: number
  maxEntries?: number | undefined
}

export type ReplayVerdict = 'fresh' | 'replayed' | 'full'

export class ReplayCache {
  readonly #toleranceMs: number
  readonly #maxEntries: number
  /** Key → clock ms after which the key may be forgotten. */
  readonly #expiries = new Map<string, number>()
  #nextSweepAt = Number.NEGATIVE_INFINITY

  constructor({ toleranceMs, maxEntries = 1_000_000 }: ReplayCacheParameters) {
    this.#toleranceMs = toleranceMs
    this.#maxEntries = maxEntries
  }

  get size(): number {
    return this.#expiries.size
  }

  /** Records `key` (signed at `timestampMs`) unless it was seen within the window. */
  admit(key: string, timestampMs: number, nowMs: number): ReplayVerdict {
    if (nowMs >= this.#nextSweepAt) this.#sweep(nowMs)
    const expiry = this.#expiries.get(key)
    if (expiry !== undefined && expiry >= nowMs) return 'replayed'
    if (this.#expiries.size >= this.#maxEntries) return 'full'
    this.#expiries.set(key, timestampMs + this.#toleranceMs)
    return 'fresh'
  }

  #sweep(nowMs: number): void {
    for (const [key, expiry] of this.#expiries) if (expiry < nowMs) this.#expiries.delete(key)
    this.#nextSweepAt = nowMs + Math.max(1, Math.floor(this.#toleranceMs / 4))
  }
}
