import type { Address, Hex } from 'viem'
import type { Logger } from '../log/logger.js'
import type { Clock } from '../time/clock.js'

// The runtime opens an embedded venue (the sandbox) through this port and never imports it: whoever composes the
// program (the command line, a test) passes the starter. The sandbox's own start function fits it as it is.

/** A venue started inside this process for as long as the caller runs: a service on loopback over local chains. */
export type EmbeddedVenue = {
  /** The service's base URL, on 127.0.0.1. */
  url: string
  /** The local chains and their RPC URLs. */
  chains: readonly { chainId: number; rpcUrl: string }[]
  /** Funded development accounts of the local chains (publicly known keys: never real funds). */
  accounts: readonly { address: Address; privateKey: Hex }[]
  /** The venue's time, which may run faster than real time: deadlines, expiries and strategy timers follow it. */
  clock: Clock
  /** Stops the service and its chains. */
  stop: () => Promise<void>
}

/** What the config's `sandbox` section asks of an embedded venue. */
export type EmbeddedVenueOptions = {
  chainIds?: readonly number[] | undefined
  speed?: number | undefined
  seed?: number | undefined
  market?: 'replay' | 'still' | undefined
  logger?: Logger | undefined
}

export type StartEmbeddedVenue<Venue extends EmbeddedVenue = EmbeddedVenue> = (options: EmbeddedVenueOptions) => Promise<Venue>
