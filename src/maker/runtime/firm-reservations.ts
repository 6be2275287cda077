import type { Address, Hex } from 'viem'

/** An open firm quote: what its order could still take of the maker's token until its expiry. */
export type FirmReservation = { orderHash: Hex; chainId: number; makerAsset: Address; remaining: bigint; expiry: number }

/**
 * What open firm quotes could still take of each token, kept in memory for the firm check (which runs on every
 * /firm request): a running total per chain and token, updated as quotes are signed, filled and closed.
 */
export class FirmReservations {
  readonly #quotes = new Map<string, FirmReservation>()
  readonly #totals = new Map<string, bigint>()

  /** Adds or replaces the reservation of an order. */
  set(reservation: FirmReservation): void {
    this.delete(reservation.orderHash)
    if (reservation.remaining <= 0n) return
    this.#quotes.set(reservation.orderHash.toLowerCase(), reservation)
    this.#add(reservation, reservation.remaining)
  }

  delete(orderHash: Hex): void {
    const known = this.#quotes.get(orderHash.toLowerCase())
    if (!known) return
    this.#quotes.delete(orderHash.toLowerCase())
    this.#add(known, -known.remaining)
  }

  /** Raw units of `token` on `chainId` that open quotes could still take. */
  reserved(chainId: number, token: Address): bigint {
    return this.#totals.get(keyOf(chainId, token)) ?? 0n
  }

  get size(): number {
    return this.#quotes.size
  }

  #add({ chainId, makerAsset }: FirmReservation, amount: bigint): void {
    const key = keyOf(chainId, makerAsset)
    const total = (this.#totals.get(key) ?? 0n) + amount
    if (total === 0n) this.#totals.delete(key)
    else this.#totals.set(key, total)
  }
}

function keyOf(chainId: number, token: Address): string {
  return `${chainId}:${token.toLowerCase()}`
}
