/** Runs tasks one after another in push order; a failing task does not stop the ones behind it. */
export type SerialQueue = {
  push: <T>(task: () => Promise<T>) => Promise<T>
  /** Resolves once every task pushed so far has settled. */
  idle: () => Promise<void>
  /** Tasks pushed and not yet settled. */
  pending: () => number
}

export function createSerialQueue(): SerialQueue {
  return new TaskQueue()
}

/**
 * A class rather than closures: a backtest asks its dispatch's queue whether anything waits after every event, and a
 * process's next backtest then meets the same method instead of a new closure it would be deoptimised for. Its methods
 * are called as methods.
 */
class TaskQueue implements SerialQueue {
  #tail: Promise<unknown> = Promise.resolve()
  #pending = 0

  push<T>(task: () => Promise<T>): Promise<T> {
    this.#pending += 1
    const run = this.#tail.then(task).finally(() => {
      this.#pending -= 1
    })
    this.#tail = run.catch(() => undefined)
    return run
  }

  async idle(): Promise<void> {
    // Tasks pushed while waiting extend the tail: wait until it stops moving.
    let seen: Promise<unknown> | undefined
    while (seen !== this.#tail) {
      seen = this.#tail
      await seen
    }
  }

  pending(): number {
    return this.#pending
  }
}
