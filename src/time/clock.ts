/** The one source of time. Strategies, executor, planner, backtest and sandbox take a Clock; none reads Date.now(). */
export type Clock = {
  /** Milliseconds since the Unix epoch. */
  now: () => number
}

export const systemClock: Clock = { now: () => Date.now() }

/** Unix seconds of a clock, as the chains and the API count them. */
export function unixSeconds(clock: Clock): number {
  return Math.floor(clock.now() / 1000)
}

export type ScaledClock = Clock & {
  readonly speed: number
  /** Time of `clock` when `baseMs` of the underlying clock is reached. */
  at: (baseMs: number) => number
}

/**
 * A clock running `speed` times faster than `base`, starting at `startMs` (default: base now). Used by the sandbox
 * to compress time consistently for chain timestamps, deadlines, auctions and TWAP intervals.
 */
export function createScaledClock({ speed, startMs, base = systemClock }: { speed: number; startMs?: number; base?: Clock }): ScaledClock {
  if (!(speed > 0) || !Number.isFinite(speed)) throw new RangeError(`clock speed must be a positive number, received ${speed}`)
  const baseStart = base.now()
  const start = startMs ?? baseStart
  const at = (baseMs: number) => Math.floor(start + (baseMs - baseStart) * speed)
  return { speed, at, now: () => at(base.now()) }
}

/** A clock that moves only when told: for tests and backtests. */
export class ManualClock implements Clock {
  #now: number
  constructor(startMs = 0) {
    this.#now = startMs
  }
  now(): number {
    return this.#now
  }
  advance(ms: number): void {
    if (ms < 0) throw new RangeError('a clock does not run backwards')
    this.#now += ms
  }
  set(ms: number): void {
    if (ms < this.#now) throw new RangeError('a clock does not run backwards')
    this.#now = ms
  }
}
