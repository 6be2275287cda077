/** Exponential backoff of a failing poll: initialDelayMs × multiplier^(failures − 1), capped, then jittered downwards. */
export type BackoffPolicy = {
  initialDelayMs: number
  maxDelayMs: number
  multiplier: number
  /** Share of the delay that is randomised away, 0..1 (0.2: the delay is 80 % to 100 % of the nominal one). */
  jitter: number
}

export const defaultBackoffPolicy: Readonly<BackoffPolicy> = { initialDelayMs: 1_000, maxDelayMs: 60_000, multiplier: 2, jitter: 0.2 }

/** Delay after the `failures`-th consecutive failure (1 = first); `random` returns a number in [0, 1). */
export function backoffDelayMs(failures: number, policy: Readonly<BackoffPolicy>, random: () => number): number {
  if (!Number.isInteger(failures) || failures < 1)
    throw new RangeError(`failures must be a whole number of at least 1, received ${failures}`)
  const nominal = Math.min(policy.maxDelayMs, policy.initialDelayMs * policy.multiplier ** (failures - 1))
  return Math.round(nominal * (1 - policy.jitter * random()))
}

/** A full policy from a partial one, checked. */
export function backoffPolicyOf(backoff: Partial<BackoffPolicy> = {}): Readonly<BackoffPolicy> {
  const policy = { ...defaultBackoffPolicy, ...backoff }
  const valid =
    policy.initialDelayMs >= 0 &&
    policy.maxDelayMs >= policy.initialDelayMs &&
    policy.multiplier >= 1 &&
    policy.jitter >= 0 &&
    policy.jitter <= 1 &&
    Object.values(policy).every(Number.isFinite)
  if (!valid) throw new RangeError(`invalid backoff policy ${JSON.stringify(policy)}`)
  return Object.freeze(policy)
}
