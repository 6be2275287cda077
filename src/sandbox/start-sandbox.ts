import type { Address, Hex } from 'viem'
import { createRandom } from '../domain/seeded-random.js'
import { createLogger, type Logger } from '../log/logger.js'
import { type Clock, createScaledClock } from '../time/clock.js'
import { developmentAccounts } from './chains/accounts.js'
import { defaultChainIds, type LocalChains, startLocalChains, untilNodeExits } from './chains/harness.js'
import { priceDelta } from './delta/api/price-delta.js'
import { createDeltaDesk } from './delta/delta-desk.js'
import type { DeltaEngine } from './delta/engine/engine.js'
import type { DeltaOrderStore } from './delta/order-store.js'
import type { MakerRegistry } from './makers/maker-registry.js'
import type { MakerRegistrationInput, MakerTiming } from './makers/maker-settings.js'
import { createMakersDesk } from './makers/makers-desk.js'
import { buildPriceRoute } from './market/build-price-route.js'
import { createMarketDesk } from './market/market-desk.js'
import { createOtcDesk } from './otc/otc-desk.js'
import { createSandboxApp } from './server/app.js'
import type { SandboxDesk } from './server/desk.js'
import { FaultInjector, type FaultRuleInput } from './server/faults.js'
import { createQuoteDesk } from './server/quote-desk.js'
import { createResourcesDesk } from './server/resources-desk.js'
import type { SandboxServerLimits } from './server/server-limits.js'
import { syncChainTime } from './venue/chain-time.js'
import { ChainVenue } from './venue/chain-venue.js'
import { loadDefaultPricePaths } from './venue/price-path.js'
import { createReferenceMarket } from './venue/reference-market.js'
import { createSandboxVenue, type SandboxVenue } from './venue/sandbox-venue.js'

export type StartSandboxOptions = {
  /** HTTP port on 127.0.0.1; 0 (default) picks a free one. */
  port?: number | undefined
  /** Default: 1 and 8453. */
  chainIds?: readonly number[] | undefined
  /** Time compression: 60 runs one sandbox minute per real second. Default 1. */
  speed?: number | undefined
  /** Seed of every random choice (agents, bridge failures, faults). Default 1. */
  seed?: number | undefined
  /**
   * `replay` (default): real candle paths drive the pools through simulated arbitrage, so prices move like a market.
   * `still`: pools move only when someone trades (tests that compare a quote with its execution).
   */
  market?: 'replay' | 'still' | undefined
  /** Real milliseconds between arbitrage rounds in `replay`. Default 1000. */
  arbitrageIntervalMs?: number | undefined
  /** Faults active from the start (more can be added at POST /_sandbox/faults). */
  faults?: readonly FaultRuleInput[] | undefined
  /**
   * Market makers consumed like the service does (more at POST /_sandbox/makers): polled with signed requests and
   * routed in Market quotes when they beat the pools. A maker that fails its first /tokens or /pairs stops the start.
   */
  makers?: readonly MakerRegistrationInput[] | undefined
  /** Polling cadence and failure rules of makers (real milliseconds); defaults in makers/maker-settings.ts. */
  makerTiming?: Partial<MakerTiming> | undefined
  /**
   * Limits of the HTTP server (defaults in server/server-limits.ts): body limit (5 MiB, then 413), the time to
   * receive a whole request (30 s, then 408 and the connection closed), the keep-alive timeout (72 s).
   */
  server?: Partial<SandboxServerLimits> | undefined
  logger?: Logger | undefined
}

export type SandboxInfo = {
  url: string
  chains: { chainId: number; rpcUrl: string }[]
  accounts: { address: Address; privateKey: Hex }[]
  tokens: { chainId: number; symbol: string; address: Address; decimals: number }[]
}

export type RunningSandbox = SandboxInfo & {
  /** The sandbox's time (`speed` times real time): what its orders, expiries and bridges count on. */
  clock: Clock
  venue: SandboxVenue
  faults: FaultInjector
  localChains: LocalChains
  /** The Delta order book and its engine (tests add orders and read agents through it). */
  delta: { store: DeltaOrderStore; engine: DeltaEngine }
  /** The registered market makers. */
  makers: MakerRegistry
  /** Stops the server, the desks' background work and the chains. Safe to call twice. */
  stop: () => Promise<void>
}

/** Starts the whole emulated service: local chains, the desks and the HTTP server on loopback. */
export async function startSandbox(options: StartSandboxOptions = {}): Promise<RunningSandbox> {
  const seed = options.seed ?? 1
  const random = createRandom(seed)
  const logger = options.logger ?? createLogger({ level: process.env.DELTAFLOW_LOG_LEVEL ?? 'warn' })
  const localChains = await startLocalChains({ chainIds: options.chainIds ?? defaultChainIds })
  const stops: (() => Promise<void> | void)[] = [() => localChains.stop()]
  let stopping = false
  const stop = async () => {
    stopping = true
    for (const step of stops.splice(0).reverse()) await step()
  }
  for (const chain of localChains.chains) {
    void chain.exited.then(({ code, signal, output }) => {
      if (stopping) return
      logger.error(
        { chainId: chain.chainId, code, signal, output: output.slice(-1_000) },
        `the anvil node of chain ${chain.chainId} ended: the sandbox can no longer settle on that chain`,
      )
    })
  }
  try {
    const chains = new Map(localChains.chains.map((chain) => [chain.chainId, new ChainVenue(chain)]))
    await Promise.all([...chains.values()].map((chain) => chain.refresh()))
    for (const chain of chains.values()) {
      chain.watch()
      stops.push(() => chain.stopWatching())
    }
    const clock = createScaledClock({ speed: options.speed ?? 1 })
    stops.push(syncChainTime(chains.values(), clock))
    const venue = createSandboxVenue({ chains, clock, random, seed, logger })
    const faults = new FaultInjector(random)
    for (const fault of options.faults ?? []) faults.add(fault)
    const deltaDesk = createDeltaDesk(venue)
    const quoteDesk = createQuoteDesk({
      priceDelta: (query) => priceDelta({ venue, store: deltaDesk.store }, query),
      priceMarket: (query) => buildPriceRoute(venue, query),
    })
    const desks: SandboxDesk[] = [createResourcesDesk(venue), createMarketDesk(venue), deltaDesk, createOtcDesk(venue), quoteDesk]
    if ((options.market ?? 'replay') === 'replay') {
      desks.push(createReferenceMarket(venue, { paths: loadDefaultPricePaths(), intervalMs: options.arbitrageIntervalMs }))
    }
    // Last: its start registers the configured makers once everything else runs, and it stops first.
    const makersDesk = createMakersDesk(venue, { makers: options.makers, timing: options.makerTiming })
    desks.push(makersDesk)
    const app = createSandboxApp({ venue, desks, faults, limits: options.server })
    const address = await app.listen({ host: '127.0.0.1', port: options.port ?? 0 })
    stops.push(() => app.close())
    for (const desk of desks) {
      await untilNodeExits(localChains.chains, Promise.resolve(desk.start?.()), `starting the sandbox's ${desk.name} desk`)
      if (desk.stop) stops.push(desk.stop)
    }
    return {
      url: address,
      chains: localChains.chains.map(({ chainId, rpcUrl }) => ({ chainId, rpcUrl })),
      accounts: developmentAccounts.map(({ address, privateKey }) => ({ address, privateKey })),
      tokens: localChains.chains.flatMap(({ chainId, fixture }) =>
        fixture.tokens.map(({ symbol, address, decimals }) => ({ chainId, symbol, address, decimals })),
      ),
      clock,
      venue,
      faults,
      localChains,
      delta: { store: deltaDesk.store, engine: deltaDesk.engine },
      makers: makersDesk.registry,
      stop,
    }
  } catch (error) {
    await stop()
    throw error
  }
}
