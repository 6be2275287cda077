import type { MakerCredentials } from '../../protocol/maker-auth.js'
import type { MakerStreamMessage } from '../../protocol/maker-wire.js'
import type { Clock } from '../../time/clock.js'
import type { MakerTiming } from './maker-settings.js'
import { type MakerStreamConnection, type MakerStreamEnd, type MakerStreamSnapshot, openMakerStream } from './open-maker-stream.js'

/** How a connection ended; `wasLive` when its first message had been applied; the next attempt is in `retryInMs`. */
export type MakerStreamLinkEnd = MakerStreamEnd & { wasLive: boolean; retryInMs: number }

export type MakerStreamLinkParameters = {
  url: URL
  credentials?: MakerCredentials | undefined
  wallClock: Clock
  timing: Pick<MakerTiming, 'requestTimeoutMs' | 'streamPingIntervalMs' | 'streamReconnectMinMs' | 'streamReconnectMaxMs'>
  onSnapshot: (snapshot: MakerStreamSnapshot) => void
  onChange: (change: MakerStreamMessage) => void
  /** After each connection (the link has already planned the next attempt). */
  onEnd: (end: MakerStreamLinkEnd) => void
}

/**
 * Keeps a maker's stream open: opens it, reopens it after it ends (waiting the minimum delay, doubled after each
 * attempt that brought no first message, up to the maximum), and keeps it closed while the maker is suspended.
 */
export class MakerStreamLink {
  readonly url: URL
  readonly #parameters: MakerStreamLinkParameters
  #connection: MakerStreamConnection | undefined
  #live = false
  #delayMs: number
  #timer: ReturnType<typeof setTimeout> | undefined
  #suspendedUntil = 0
  #stopped = false

  constructor(parameters: MakerStreamLinkParameters) {
    this.url = parameters.url
    this.#parameters = parameters
    this.#delayMs = parameters.timing.streamReconnectMinMs
  }

  /** True while the stream is open and its first message applied. */
  get live(): boolean {
    return this.#live
  }

  /** Opens the stream now (later while suspended); nothing when it is open or being opened. */
  open(): void {
    if (this.#stopped || this.#connection !== undefined) return
    const now = this.#parameters.wallClock.now()
    if (now < this.#suspendedUntil) {
      this.#schedule(this.#suspendedUntil - now)
      return
    }
    const { url, credentials, wallClock, timing } = this.#parameters
    this.#connection = openMakerStream({
      url,
      credentials,
      wallClock,
      timeoutMs: timing.requestTimeoutMs,
      pingIntervalMs: timing.streamPingIntervalMs,
      onSnapshot: (snapshot) => {
        this.#live = true
        this.#delayMs = timing.streamReconnectMinMs
        this.#parameters.onSnapshot(snapshot)
      },
      onChange: (change) => this.#parameters.onChange(change),
      onEnd: (end) => this.#ended(end),
    })
  }

  /** Closes the stream until `untilMs` (wall clock), then reopens it. */
  suspend(untilMs: number): void {
    this.#suspendedUntil = Math.max(this.#suspendedUntil, untilMs)
    if (this.#connection !== undefined) this.#connection.close()
    else if (this.#timer !== undefined) this.#schedule(this.#delayMs)
  }

  stop(): void {
    this.#stopped = true
    clearTimeout(this.#timer)
    this.#connection?.close()
  }

  #ended(end: MakerStreamEnd): void {
    const wasLive = this.#live
    this.#connection = undefined
    this.#live = false
    if (this.#stopped) return
    const retryInMs = this.#schedule(this.#delayMs)
    this.#delayMs = Math.min(this.#delayMs * 2, this.#parameters.timing.streamReconnectMaxMs)
    this.#parameters.onEnd({ ...end, wasLive, retryInMs })
  }

  /** Plans the next attempt in `delayMs`, or when the suspension ends if later; returns the wait. */
  #schedule(delayMs: number): number {
    clearTimeout(this.#timer)
    const wait = Math.max(delayMs, this.#suspendedUntil - this.#parameters.wallClock.now(), 0)
    this.#timer = setTimeout(() => {
      this.#timer = undefined
      this.open()
    }, wait)
    this.#timer.unref()
    return wait
  }
}
