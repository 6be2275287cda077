import type { Address } from 'viem'
import type { z } from 'zod'
import { BaseError } from '../../errors/base.js'
import type { Logger } from '../../log/logger.js'
import {
  blacklistResponseSchema,
  type MakerPair,
  type MakerStreamMessage,
  type MakerToken,
  type PriceGridWire,
  pairsResponseSchema,
  pricesResponseSchema,
  tokensResponseSchema,
} from '../../protocol/maker-wire.js'
import type { ChainVenue } from '../venue/chain-venue.js'
import { type MakerCatalogue, type MakerPairOnChain, mapMakerCatalogue } from './maker-catalogue.js'
import { MakerLevels } from './maker-levels.js'
import { type MakerEndpoint, requestMaker } from './maker-request.js'
import { displayMakerUrl, type MakerRegistration, type MakerTiming } from './maker-settings.js'
import { MakerStreamLink, type MakerStreamLinkEnd } from './maker-stream-link.js'
import type { MakerStreamSnapshot } from './open-maker-stream.js'

/** `polling`: waiting for its first good `/prices`; `ok`: routed; `disabled`: its last poll failed, or it is paused. */
export type MakerState = 'polling' | 'ok' | 'disabled'

/** Where the maker's prices come from: its WebSocket stream (snapshot, then changes) or `/prices` polls. */
export type MakerTransport = 'websocket' | 'http'

/** What `GET /_sandbox/makers` shows of a maker (never its credentials). */
export type MakerStatus = {
  name: string
  chainId: number
  url: string
  /** The maker's WebSocket stream, when it offers one. */
  websocketUrl: string | null
  /** `websocket` while the stream is open and its first message applied; `http` otherwise (polling). */
  transport: MakerTransport
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
  /** Wall-clock unix ms of the last prices received (a successful `/prices`, or prices on the stream). */
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
 * One registered maker and what the sandbox knows of it, kept current as the service does: by polling (`/prices`
 * about every second, never overlapping; `/tokens`, `/pairs` and `/blacklist` about every minute) or, when the maker
 * offers it, by its WebSocket stream (the snapshot, then changes; `/blacklist` is still polled). While the stream is
 * open, `/prices` is polled only to refresh levels the stream left untouched for half their lifetime; when it cannot
 * be opened or drops, polling takes over at once and the stream is reopened with backoff. A failed `/prices` or a
 * refused stream message takes the maker out of routing at once; several in a row pause it (the stream is closed
 * meanwhile); levels nobody refreshed expire.
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
  /** The tokens and pairs as the maker sent them (the stream's changes are merged into them). */
  #sent: { tokens: Readonly<Record<string, MakerToken>>; pairs: Readonly<Record<string, MakerPair>> } = { tokens: {}, pairs: {} }
  #catalogue: MakerCatalogue = { tokens: new Map(), pairs: [] }
  #levels = new MakerLevels()
  /** False until complete prices arrive (a `/prices` answer or the stream's first message), and after a failure. */
  #routable = false
  #pricedAt: number | undefined
  #polling = false
  #failures = 0
  #pausedUntil: number | undefined
  #lastError: { message: string; at: number } | undefined
  /** Lowercase user address → wall-clock ms when the entry lapses. */
  readonly #blacklist = new Map<string, number>()
  #pricesTimer: ReturnType<typeof setTimeout> | undefined
  #catalogueTimer: ReturnType<typeof setTimeout> | undefined
  /** The maker's WebSocket stream, when it offers one. */
  readonly #stream: MakerStreamLink | undefined

  constructor({ registration, chain, timing, endpoint, logger }: RegisteredMakerParameters) {
    this.name = registration.name
    this.chain = chain
    this.url = displayMakerUrl(registration.url)
    this.endpoint = endpoint
    this.timing = timing
    this.#logger = logger.child({ maker: registration.name, chainId: chain.chainId })
    if (registration.websocket !== undefined) {
      this.#stream = new MakerStreamLink({
        url: registration.websocket,
        credentials: endpoint.credentials,
        wallClock: endpoint.wallClock,
        timing,
        onSnapshot: (snapshot) => this.#applySnapshot(snapshot),
        onChange: (change) => this.#applyChange(change),
        onEnd: (end) => this.#streamEnded(end),
      })
    }
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
    this.#setCatalogue(tokens.tokens, pairs.pairs)
  }

  /**
   * Starts consuming: `/prices` and `/blacklist` at once, the catalogue again every catalogue interval, and the
   * stream when the maker offers one (polling goes on until its first message is applied).
   */
  start(): void {
    this.#schedulePrices(0)
    void this.#refreshBlacklist()
    this.#scheduleCatalogue(this.timing.catalogueIntervalMs)
    this.#stream?.open()
  }

  stop(): void {
    this.#abort.abort()
    clearTimeout(this.#pricesTimer)
    clearTimeout(this.#catalogueTimer)
    this.#stream?.stop()
  }

  /** The pairs and grids routing may use, or nothing while the maker is paused, failed or stale. */
  liquidity(): MakerLiquidity | undefined {
    if (this.#isPaused() || !this.#routable || this.#pricedAt === undefined) return undefined
    const oldest = this.#now() - this.timing.levelsMaxAgeMs
    if (this.#pricedAt < oldest) return undefined
    // A pair the stream has not refreshed for that long is stale even while others are fresh.
    return { pairs: this.#catalogue.pairs, grids: this.#levels.receivedSince(oldest) }
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
    const state: MakerState = paused || (this.#lastError !== undefined && !this.#routable) ? 'disabled' : liquidity ? 'ok' : 'polling'
    const now = this.#now()
    return {
      name: this.name,
      chainId: this.chainId,
      url: this.url,
      websocketUrl: this.#stream ? displayMakerUrl(this.#stream.url) : null,
      transport: this.#stream?.live ? 'websocket' : 'http',
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
    clearTimeout(this.#pricesTimer)
    if (this.#abort.signal.aborted) return
    this.#pricesTimer = setTimeout(() => void this.#pollPrices(), Math.max(0, delayMs))
    this.#pricesTimer.unref()
  }

  /** While the stream is live, `/prices` only refreshes levels it left untouched for half their lifetime. */
  #needsPoll(): boolean {
    if (!this.#stream?.live || !this.#routable || this.#pricedAt === undefined) return true
    const oldest = this.#levels.oldestAt() ?? this.#pricedAt
    return this.#now() - oldest >= this.timing.levelsMaxAgeMs / 2
  }

  async #pollPrices(): Promise<void> {
    const started = this.#now()
    if (this.#isPaused()) {
      this.#schedulePrices((this.#pausedUntil ?? started) - started)
      return
    }
    if (this.#needsPoll()) {
      this.#polling = true
      try {
        const answer = await this.#get('/prices', pricesResponseSchema)
        // Pairs the stream changed while the request was out are newer than the answer: they stay.
        this.#levels.replaceAll(answer.prices, this.#now(), started)
        this.#priced()
      } catch (error) {
        if (this.#abort.signal.aborted) return
        this.#fail(reasonOf(error))
      } finally {
        this.#polling = false
      }
    }
    this.#schedulePrices(this.timing.pricesIntervalMs - (this.#now() - started))
  }

  /** Good prices arrived (a poll or the stream): the maker is routed again. */
  #priced(): void {
    this.#routable = true
    this.#pricedAt = this.#now()
    this.#failures = 0
    this.#pausedUntil = undefined
  }

  #fail(reason: string): void {
    this.#levels = new MakerLevels()
    this.#routable = false
    this.#pricedAt = undefined
    this.#failures += 1
    this.#lastError = { message: reason, at: this.#now() }
    if (this.#failures >= this.timing.failuresBeforePause) {
      this.#pausedUntil = this.#now() + this.timing.pauseMs
      this.#failures = 0
      this.#logger.warn({ reason, pausedForMs: this.timing.pauseMs }, 'maker paused after consecutive failures')
      // Paused: neither polled nor streamed; the stream is reopened when the pause ends.
      this.#stream?.suspend(this.#pausedUntil)
    } else {
      this.#logger.warn({ reason }, 'maker out of routing')
    }
  }

  /** The stream's first message: the complete catalogue, prices and blacklist; prices come from the stream from now on. */
  #applySnapshot(snapshot: MakerStreamSnapshot): void {
    this.#setCatalogue(snapshot.tokens, snapshot.pairs)
    this.#levels = new MakerLevels()
    this.#levels.replaceAll(snapshot.prices, this.#now())
    this.#priced()
    this.#blacklistAll(snapshot.blacklist, 'listed on the stream')
    this.logMessage(this.#streamPath(), snapshot.message)
    this.#logger.info({ url: this.#stream && displayMakerUrl(this.#stream.url) }, 'maker stream open: prices come from it')
  }

  /** A later message: new or corrected tokens and pairs (none is deleted), changed grids, newly blacklisted users. */
  #applyChange(change: MakerStreamMessage): void {
    if (change.tokens !== undefined || change.pairs !== undefined) {
      this.#setCatalogue({ ...this.#sent.tokens, ...change.tokens }, { ...this.#sent.pairs, ...change.pairs })
    }
    if (change.prices !== undefined) {
      this.#levels.update(change.prices, this.#now())
      // After a failure, changes are kept but route only once a complete /prices answer joins them.
      if (this.#routable) this.#priced()
    }
    if (change.blacklist !== undefined) this.#blacklistAll(change.blacklist, 'listed on the stream')
    this.logMessage(this.#streamPath(), change.message)
  }

  #streamEnded({ kind, reason, wasLive, retryInMs }: MakerStreamLinkEnd): void {
    if (this.#abort.signal.aborted) return
    if (kind === 'invalid') {
      // As a failed /prices: out of routing at once (the levels may have missed the refused change).
      this.#fail(reason)
    } else if (kind === 'dropped') {
      this.#lastError = { message: reason, at: this.#now() }
      if (wasLive) this.#logger.warn({ reason, retryInMs }, 'maker stream dropped: polling /prices until it reopens')
      else this.#logger.info({ reason, retryInMs }, 'maker stream could not be opened: polling /prices meanwhile')
    }
    // Polling takes over at once (a poll still out reschedules itself).
    if (!this.#polling) this.#schedulePrices(0)
  }

  #streamPath(): string {
    return this.#stream?.url.pathname ?? '/ws'
  }

  #setCatalogue(tokens: Readonly<Record<string, MakerToken>>, pairs: Readonly<Record<string, MakerPair>>): void {
    this.#sent = { tokens, pairs }
    this.#catalogue = mapMakerCatalogue(this.chain, { tokens, pairs }, (reason) => this.#logOnce(reason))
  }

  #blacklistAll(users: readonly Address[], reason: string): void {
    for (const user of users) this.blacklistUser(user, reason)
  }

  #scheduleCatalogue(delayMs: number): void {
    if (this.#abort.signal.aborted) return
    this.#catalogueTimer = setTimeout(() => void this.#refreshCatalogue(), delayMs)
    this.#catalogueTimer.unref()
  }

  async #refreshCatalogue(): Promise<void> {
    if (!this.#isPaused()) {
      // The stream carries new and corrected tokens and pairs; only /blacklist is still polled beside it.
      if (!this.#stream?.live) {
        try {
          await this.loadCatalogue()
        } catch (error) {
          if (this.#abort.signal.aborted) return
          this.#lastError = { message: reasonOf(error), at: this.#now() }
          this.#logger.warn({ reason: reasonOf(error) }, 'maker catalogue refresh failed; the previous one stays')
        }
      }
      await this.#refreshBlacklist()
    }
    this.#scheduleCatalogue(this.timing.catalogueIntervalMs)
  }

  async #refreshBlacklist(): Promise<void> {
    try {
      const answer = await this.#get('/blacklist', blacklistResponseSchema)
      this.#blacklistAll(answer.blacklist, 'listed by /blacklist')
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
