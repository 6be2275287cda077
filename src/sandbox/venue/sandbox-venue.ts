import { randomBytes } from 'node:crypto'
import type { Logger } from '../../log/logger.js'
import type { ScaledClock } from '../../time/clock.js'
import type { ChainVenue } from './chain-venue.js'

/** Everything the sandbox's desks share: the chains, one clock, one seeded random source, secrets of the run. */
export type SandboxVenue = {
  readonly chains: ReadonlyMap<number, ChainVenue>
  /** Sandbox time (scaled by --speed). */
  readonly clock: ScaledClock
  readonly random: () => number
  readonly seed: number
  /** Key of the `hmac` integrity tag on Market price routes; new for every run. */
  readonly routeSecret: Buffer
  readonly logger: Logger
}

export function createSandboxVenue(parameters: Omit<SandboxVenue, 'routeSecret'>): SandboxVenue {
  return { ...parameters, routeSecret: randomBytes(32) }
}
