import type { Address } from 'viem'
import type { z } from 'zod'
import { BaseError } from '../../errors/base.js'
import type { Logger } from '../../log/logger.js'
import {
  blacklistResponseSchema,
  type PriceGridWire,
  pairsResponseSchema,
  pricesResponseSchema,
  tokensResponseSchema,
} from '../../protocol/maker-wire.js'
import type { ChainVenue } from '../venue/chain-venue.js'
import { type MakerCatalogue, type MakerPairOnChain, mapMakerCatalogue } from './maker-catalogue.js'
import { type MakerEndpoint, requestMaker } from './maker-request.js'
import { displayMakerUrl, type MakerRegistration, type MakerTiming } from './maker-settings.js'

/** `polling`: waiting for its first good `/prices`; `ok`: routed; `disabled`: its last poll failed, or it is paused. */
export type MakerState = 'polling' | 'ok' | 'disabled'

/** What `GET /_sandbox/makers` shows of a maker (never its credentials). */
export type MakerStatus = {
  name: string
  chainId: number
  url: string
  state: MakerState
  lastError: string | null
  /** Wall-clock unix ms of the last error. */
  lastErrorAt: number | null
  /** Wall-clock unix ms until which a paused maker is neither polled nor routed. */
  disabledUntil: number | null
  consecutiveFailures: number
  /** Pairs whose tokens the chain knows. */
  pairsServed: number
  /** Price levels cached for routing (0 while the maker is out of routing). */
  levelsCached: number
  blacklistedUsers: number
  /** Wall-clock unix ms of the last successful `/prices`. */
  pricedAt: number | null
}

/** What routing may use of a maker right now. */
export type MakerLiquidity = {
  pairs: readonly MakerPairOnChain[]
  grids: Readonly<Record<string, PriceGridWire>>
}

export type RegisteredMakerParameters = {
  registration: MakerRegistration
  chain: ChainVenue
  timing: MakerTiming
  endpoint: MakerEndpoint
  logger: Logger
}

/**
 * One registered maker and what the sandbox knows of it, kept current by polling as the service does: `/prices` about
 * every second (never overlapping), `/tokens`, `/pairs` and `/blacklist` about every minute. A failed `/prices` takes
 * the maker out of routing at once; several in a row pause it; levels nobody refreshed expire.
 */
export class RegisteredMaker {
  readonly name: string
  readonly chain: ChainVenue
  readonly url: string
  readonly endpoint: MakerEndpoint
  readonly timing: MakerTiming
  readonly #logger: Logger
  readonly #logged = new Set<string>()
  readonly #abort = new AbortController()
  #catalogue: MakerCatalogue = { tokens: new Map(), pairs: [] }
  #grids: Readonly<Record<string, PriceGridWire>> | undefined
  #pricedAt: number | undefined
  #failures = 0
  #pausedUntil: number | undefined
  #lastError: { message: string; at: number } | undefined
  /** Lowercase user address → wall-clock ms when the entry lapses. */
  readonly #blacklist = new Map<string, number>()
  #pricesTimer: ReturnType<typeof setTimeout> | undefined
  #catalogueTimer: ReturnType<typeof setTimeout> | undefined

  constructor({ registration, chain, timing, endpoint, logger }: RegisteredMakerParameters) {
    this.name = registration.name
    this.chain = chain
    this.url = displayMakerUrl(registration.url)
    this.endpoint = endpoint
    this.timing = timing
    this.#logger = logger.child({ maker: registration.name, chainId: chain.chainId })
  }

  get chainId(): number {
    return this.chain.chainId
  }

  get signal(): AbortSignal {
    return this.#abort.signal
  }

  #now(): number {
    return this.endpoint.wallClock.now()
  }

  /** Fetches `/tokens` and `/pairs` and keeps what the chain knows; throws MakerRequestError. */
  async loadCatalogue(): Promise<void> {
    const [tokens, pairs] = await Promise.all([this.#get('/tokens', tokensResponseSchema), this.#get('/pairs', pairsResponseSchema)])
    this.#catalogue = mapMakerCatalogue(this.chain, { tokens: tokens.tokens, pairs: pairs.pairs }, (reason) => this.#logOnce(reason))
  }

  /** Starts polling: `/prices` and `/blacklist` at once, the catalogue again every catalogue interval. */
  start(): void {
    this.#schedulePrices(0)
    void this.#refreshBlacklist()
    this.#scheduleCatalogue(this.timing.catalogueIntervalMs)
  }

  stop(): void {
    this.#abort.abort()
    clearTimeout(this.#pricesTimer)
    clearTimeout(this.#catalogueTimer)
  }

  /** The pairs and grids routing may use, or nothing while the maker is paused, failed or stale. */
  liquidity(): MakerLiquidity | undefined {
    if (this.#isPaused() || this.#grids === undefined || this.#pricedAt === undefined) return undefined
    if (this.#now() - this.#pricedAt > this.timing.levelsMaxAgeMs) return undefined
    return { pairs: this.#catalogue.pairs, grids: this.#grids }
  }

  isBlacklisted(user: Address): boolean {
    const until = this.#blacklist.get(user.toLowerCase())
    return until !== undefined && until > this.#now()
  }

  /** Caches a user as blacklisted by this maker (from `/blacklist`, a firm answer without order, or a 403 of `/firm`). */
  blacklistUser(user: Address, reason: string): void {
    const key = user.toLowerCase()
    if (!this.isBlacklisted(user)) this.#logger.info({ user, reason }, 'user blacklisted by the maker')
    this.#blacklist.set(key, this.#now() + this.timing.blacklistTtlMs)
  }

  /** A failure outside polling (a bad firm answer): the maker leaves routing until its next good `/prices`. */
  markFailed(reason: string): void {
    this.#fail(reason)
  }

  /** Logs a maker's `message`, as the service does on every request that carries one. */
  logMessage(path: string, message: string | undefined): void {
    if (message !== undefined) this.#logger.info({ path, message }, 'maker message')
  }

  status(): MakerStatus {
    const paused = this.#isPaused()
    const liquidity = this.liquidity()
    const state: MakerState =
      paused || (this.#lastError !== undefined && this.#grids === undefined) ? 'disabled' : liquidity ? 'ok' : 'polling'
    const now = this.#now()
    return {
      name: this.name,
      chainId: this.chainId,
      url: this.url,
      state,
      lastError: this.#lastError?.message ?? null,
      lastErrorAt: this.#lastError?.at ?? null,
      disabledUntil: paused ? (this.#pausedUntil ?? null) : null,
      consecutiveFailures: this.#failures,
      pairsServed: this.#catalogue.pairs.length,
      levelsCached: liquidity ? countLevels(liquidity) : 0,
      blacklistedUsers: [...this.#blacklist.values()].filter((until) => until > now).length,
      pricedAt: this.#pricedAt ?? null,
    }
  }

  #isPaused(): boolean {
    return this.#pausedUntil !== undefined && this.#pausedUntil > this.#now()
  }

  #schedulePrices(delayMs: number): void {
    if (this.#abort.signal.aborted) return
    this.#pricesTimer = setTimeout(() => void this.#pollPrices(), Math.max(0, delayMs))
    this.#pricesTimer.unref()
  }

  async #pollPrices(): Promise<void> {
    const started = this.#now()
    if (this.#isPaused()) {
      this.#schedulePrices((this.#pausedUntil ?? started) - started)
      return
    }
    try {
      const answer = await this.#get('/prices', pricesResponseSchema)
      this.#grids = answer.prices
      this.#pricedAt = this.#now()
      this.#failures = 0
      this.#pausedUntil = undefined
    } catch (error) {
      if (this.#abort.signal.aborted) return
      this.#fail(reasonOf(error))
    }
    this.#schedulePrices(this.timing.pricesIntervalMs - (this.#now() - started))
  }

  #fail(reason: string): void {
    this.#grids = undefined
    this.#pricedAt = undefined
    this.#failures += 1
    this.#lastError = { message: reason, at: this.#now() }
    if (this.#failures >= this.timing.failuresBeforePause) {
      this.#pausedUntil = this.#now() + this.timing.pauseMs
      this.#failures = 0
      this.#logger.warn({ reason, pausedForMs: this.timing.pauseMs }, 'maker paused after consecutive failures')
    } else {
      this.#logger.warn({ reason }, 'maker out of routing')
    }
  }

  #scheduleCatalogue(delayMs: number): void {
    if (this.#abort.signal.aborted) return
    this.#catalogueTimer = setTimeout(() => void this.#refreshCatalogue(), delayMs)
    this.#catalogueTimer.unref()
  }

  async #refreshCatalogue(): Promise<void> {
    if (!this.#isPaused()) {
      try {
        await this.loadCatalogue()
      } catch (error) {
        if (this.#abort.signal.aborted) return
        this.#lastError = { message: reasonOf(error), at: this.#now() }
        this.#logger.warn({ reason: reasonOf(error) }, 'maker catalogue refresh failed; the previous one stays')
      }
      await this.#refreshBlacklist()
    }
    this.#scheduleCatalogue(this.timing.catalogueIntervalMs)
  }

  async #refreshBlacklist(): Promise<void> {
    try {
      const answer = await this.#get('/blacklist', blacklistResponseSchema)
      for (const user of answer.blacklist) this.blacklistUser(user, 'listed by /blacklist')
    } catch (error) {
      if (this.#abort.signal.aborted) return
      this.#lastError = { message: reasonOf(error), at: this.#now() }
      this.#logger.warn({ reason: reasonOf(error) }, 'maker blacklist refresh failed; the cached one stays')
    }
  }

  async #get<T extends z.ZodType<{ message?: string | undefined }>>(path: string, schema: T): Promise<z.output<T>> {
    const answer = await requestMaker(this.endpoint, {
      method: 'GET',
      path,
      schema,
      timeoutMs: this.timing.requestTimeoutMs,
      signal: this.#abort.signal,
    })
    this.logMessage(path, answer.message)
    return answer
  }

  #logOnce(reason: string): void {
    if (this.#logged.has(reason)) return
    this.#logged.add(reason)
    this.#logger.info({ reason }, 'maker entry ignored')
  }
}

/** One line on why a request failed (a MakerRequestError's own message, without its cause). */
function reasonOf(error: unknown): string {
  if (error instanceof BaseError) return error.shortMessage
  return error instanceof Error ? error.message : String(error)
}

/** Levels of the served pairs' grids. */
function countLevels({ pairs, grids }: MakerLiquidity): number {
  return pairs.reduce((sum, pair) => sum + (grids[pair.id]?.bids?.length ?? 0) + (grids[pair.id]?.asks?.length ?? 0), 0)
}
