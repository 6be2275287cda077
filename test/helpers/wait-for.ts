/**
 * Reads `read` every `pollMs` until it gives a value (not undefined) and returns it; throws naming `what` once
 * `timeoutMs` of real time have passed. The bound only says when to give up: no test asserts how long it took.
 */
export async function waitFor<T>(
  what: string,
  read: () => T | undefined | Promise<T | undefined>,
  timeoutMs = 30_000,
  pollMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await read()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`waited ${timeoutMs} ms for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, pollMs))
  }
}
