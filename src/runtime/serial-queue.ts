/** Runs tasks one after another in push order; a failing task does not stop the ones behind it. */
export type SerialQueue = {
  push: <T>(task: () => Promise<T>) => Promise<T>
  /** Resolves once every task pushed so far has settled. */
  idle: () => Promise<void>
  /** Tasks pushed and not yet settled. */
  pending: () => number
}

export function createSerialQueue(): SerialQueue {
  let tail: Promise<unknown> = Promise.resolve()
  let pending = 0
  return {
    push: (task) => {
      pending += 1
      const run = tail.then(task).finally(() => {
        pending -= 1
      })
      tail = run.catch(() => undefined)
      return run
    },
    idle: async () => {
      // Tasks pushed while waiting extend the tail: wait until it stops moving.
      let seen: Promise<unknown> | undefined
      while (seen !== tail) {
        seen = tail
        await seen
      }
    },
    pending: () => pending,
  }
}
