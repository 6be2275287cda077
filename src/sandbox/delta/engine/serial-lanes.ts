/**
 * Runs tasks one at a time per key, in arrival order; different keys run in parallel. The engine keys sending
 * accounts by chain and address, so each account's transactions take its nonces in turn.
 */
export class SerialLanes {
  readonly #tails = new Map<string, Promise<unknown>>()

  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.#tails.get(key) ?? Promise.resolve()
    const result = previous.then(task, task)
    const tail = result.then(
      () => undefined,
      () => undefined,
    )
    this.#tails.set(key, tail)
    void tail.then(() => {
      if (this.#tails.get(key) === tail) this.#tails.delete(key)
    })
    return result
  }
}

export function laneKey(chainId: number, address: string): string {
  return `${chainId}:${address.toLowerCase()}`
}
