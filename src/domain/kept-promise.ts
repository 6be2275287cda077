/**
 * The promise kept in `kept` under `key`, made by `make` when there is none: callers asking for the same key at once, or
 * later, share one piece of work (a file hashed, a module imported, a token's decimals read). A promise that rejects
 * is dropped, so the next call tries again rather than repeating the failure.
 *
 * @example
 * const decimals = new Map<string, Promise<number>>()
 * const known = keptPromise(decimals, `${chainId}:${token}`, () => readTokenDecimals(client, token))
 */
export function keptPromise<Key, Value>(kept: Map<Key, Promise<Value>>, key: Key, make: () => Promise<Value>): Promise<Value> {
  let promise = kept.get(key)
  if (promise === undefined) {
    promise = make()
    kept.set(key, promise)
    promise.catch(() => kept.delete(key))
  }
  return promise
}
