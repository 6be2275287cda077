import { z } from 'zod'
import { type ApiClient, createApiClient } from '../api/client.js'
import type { DeltaflowConfig } from '../config/schema.js'
import type { Logger } from '../log/logger.js'
import { type Clock, createScaledClock, systemClock } from '../time/clock.js'
import { BotSetupError } from './bot-errors.js'
import type { EmbeddedVenue, StartEmbeddedVenue } from './embedded-venue.js'

/** The venue of a configuration: its API client, the clock it dictates and its chains' RPC URLs. */
export type OpenedVenue<Venue extends EmbeddedVenue = EmbeddedVenue> = {
  api: ApiClient
  /** The embedded venue's clock; a deltaflow sandbox's on loopback; the system clock for any other venue. */
  clock: Clock
  /** The base URL the API client talks to. */
  url: string
  chains: { chainId: number; rpcUrls: string[] }[]
  /** The embedded venue, when `venue.url` is `sandbox`. */
  embedded: Venue | undefined
  close: () => Promise<void>
}

export type OpenVenueParameters<Venue extends EmbeddedVenue> = {
  config: DeltaflowConfig
  logger: Logger
  /** Starts the embedded venue for `venue.url: sandbox`; without it such a config is refused. */
  startEmbedded?: StartEmbeddedVenue<Venue> | undefined
  /**
   * Whether `mode: paper` must trade on a sandbox (a bot: yes). One-off commands (swap, cancel, reconcile) take a
   * venue URL as given, and follow a sandbox's clock whenever the venue is one.
   */
  enforceMode?: boolean | undefined
}

/**
 * Opens the venue a configuration names: `sandbox` starts the embedded one (with the config's speed, chains, seed and
 * market), a deltaflow sandbox on loopback lends its clock (required in paper mode), any other venue runs on the
 * system clock. Chains come from the config, then from the embedded venue.
 */
export async function openVenue<Venue extends EmbeddedVenue = EmbeddedVenue>({
  config,
  logger,
  startEmbedded,
  enforceMode = true,
}: OpenVenueParameters<Venue>): Promise<OpenedVenue<Venue>> {
  let embedded: Venue | undefined
  if (config.venue.url === 'sandbox') {
    if (!startEmbedded) {
      throw new BotSetupError('venue.url is "sandbox", and this program cannot start an embedded sandbox', {
        hint: 'set venue.url to a service URL or to a `deltaflow sandbox` on loopback',
        errorClass: 'operational',
      })
    }
    const { chains, speed, seed, market } = config.sandbox
    embedded = await startEmbedded({ chainIds: chains, speed, seed, market, logger })
  }
  try {
    const url = embedded?.url ?? config.venue.url
    const api = createApiClient({
      baseUrl: url,
      apiKey: config.venue.apiKey,
      partner: config.venue.partner,
      timeoutMs: config.venue.timeoutMs,
      retry: { retries: config.venue.retries },
      rateLimit: { requestsPerSecond: config.venue.requestsPerSecond },
      logger,
    })
    const clock = embedded ? embedded.clock : await venueClock(url, enforceMode && config.mode === 'paper')
    const rpc = new Map(Object.entries(config.chains).map(([chainId, chain]) => [Number(chainId), chain.rpcUrls]))
    for (const chain of embedded?.chains ?? []) if (!rpc.has(chain.chainId)) rpc.set(chain.chainId, [chain.rpcUrl])
    if (rpc.size === 0) {
      throw new BotSetupError('No chain RPC URL is configured', {
        hint: 'list the chains and their RPC URLs under `chains:` in the config (or pass --rpc CHAIN=URL)',
        errorClass: 'operational',
      })
    }
    return {
      api,
      clock,
      url,
      chains: [...rpc].map(([chainId, rpcUrls]) => ({ chainId, rpcUrls })),
      embedded,
      close: async () => embedded?.stop(),
    }
  } catch (error) {
    await embedded?.stop()
    throw error
  }
}

export function isLoopback(url: string): boolean {
  const host = new URL(url).hostname
  return host === '127.0.0.1' || host === 'localhost' || host === '[::1]'
}

const sandboxTimeSchema = z.object({ nowMs: z.number(), speed: z.number().positive() })

/**
 * A deltaflow sandbox on loopback runs its own (possibly compressed) time, and orders must follow it: its clock, read
 * from GET /_sandbox/time. Paper mode requires one; another venue on loopback (a proxy of the service) keeps the
 * system clock. Remote venues are not asked.
 */
async function venueClock(baseUrl: string, paper: boolean): Promise<Clock> {
  if (!isLoopback(baseUrl)) return systemClock
  let parsed: ReturnType<typeof sandboxTimeSchema.safeParse> | undefined
  try {
    const response = await fetch(new URL('/_sandbox/time', baseUrl), { signal: AbortSignal.timeout(5_000) })
    parsed = sandboxTimeSchema.safeParse(response.ok ? await response.json() : undefined)
  } catch {
    parsed = undefined
  }
  if (parsed?.success) return createScaledClock({ speed: parsed.data.speed, startMs: parsed.data.nowMs })
  if (!paper) return systemClock
  throw new BotSetupError(`mode: paper expects a deltaflow sandbox at ${baseUrl}, and GET /_sandbox/time did not answer like one`, {
    hint: 'start one with `deltaflow sandbox`, or remove venue.url to use the embedded sandbox',
    errorClass: 'operational',
  })
}
