import { BaseError } from '../../errors/base.js'
import { type Clock, systemClock } from '../../time/clock.js'
import type { SandboxVenue } from '../venue/sandbox-venue.js'
import { defaultMakerTiming, type MakerRegistration, type MakerTiming } from './maker-settings.js'
import { type MakerStatus, RegisteredMaker } from './registered-maker.js'

/**
 * Registration refused: an `invalid` registration, a `duplicate` name, a `chain` not running, or the maker's
 * `/tokens` / `/pairs` failed (`maker`).
 */
export class MakerRegistrationError extends BaseError {
  override name = 'MakerRegistrationError'
  readonly reason: 'invalid' | 'duplicate' | 'chain' | 'maker'

  constructor(message: string, reason: MakerRegistrationError['reason'], cause?: unknown) {
    super(message, { cause, errorClass: 'operational' })
    this.reason = reason
  }
}

export type MakerRegistryParameters = {
  venue: SandboxVenue
  timing?: Partial<MakerTiming> | undefined
  /** Signs the auth timestamps and times polling (default: the system clock; the maker checks against its own). */
  wallClock?: Clock | undefined
}

/** The makers a sandbox consumes, by name; each polls on its own until removed or the sandbox stops. */
export class MakerRegistry {
  readonly timing: MakerTiming
  readonly #venue: SandboxVenue
  readonly #wallClock: Clock
  readonly #makers = new Map<string, RegisteredMaker>()
  /** Names being registered (their first requests are in flight). */
  readonly #pending = new Set<string>()

  constructor({ venue, timing, wallClock }: MakerRegistryParameters) {
    this.#venue = venue
    this.#wallClock = wallClock ?? systemClock
    this.timing = { ...defaultMakerTiming, ...timing }
  }

  /** Fetches the maker's `/tokens` and `/pairs`, then starts polling it. Nothing is kept when that fails. */
  async register(registration: MakerRegistration): Promise<MakerStatus> {
    const { name, chainId } = registration
    if (this.#makers.has(name) || this.#pending.has(name)) {
      throw new MakerRegistrationError(`A maker named ${name} is already registered`, 'duplicate')
    }
    const chain = this.#venue.chains.get(chainId)
    if (!chain) {
      const running = [...this.#venue.chains.keys()].join(', ')
      throw new MakerRegistrationError(`chain ${chainId} is not running in this sandbox (running: ${running})`, 'chain')
    }
    const maker = new RegisteredMaker({
      registration,
      chain,
      timing: this.timing,
      endpoint: { baseUrl: registration.url, credentials: registration.auth, wallClock: this.#wallClock },
      logger: this.#venue.logger,
    })
    this.#pending.add(name)
    try {
      await maker.loadCatalogue()
    } catch (cause) {
      maker.stop()
      throw new MakerRegistrationError(
        `Maker ${name} could not be registered: ${cause instanceof BaseError ? cause.shortMessage : (cause as Error).message}`,
        'maker',
        cause,
      )
    } finally {
      this.#pending.delete(name)
    }
    this.#makers.set(name, maker)
    maker.start()
    return maker.status()
  }

  /** Stops polling the maker and forgets it; false when no maker has that name. */
  remove(name: string): boolean {
    const maker = this.#makers.get(name)
    if (!maker) return false
    maker.stop()
    this.#makers.delete(name)
    return true
  }

  get(name: string): RegisteredMaker | undefined {
    return this.#makers.get(name)
  }

  /** The makers registered on a chain, in registration order. */
  onChain(chainId: number): RegisteredMaker[] {
    return [...this.#makers.values()].filter((maker) => maker.chainId === chainId)
  }

  list(): MakerStatus[] {
    return [...this.#makers.values()].map((maker) => maker.status())
  }

  stop(): void {
    for (const maker of this.#makers.values()) maker.stop()
    this.#makers.clear()
  }
}

const registries = new WeakMap<SandboxVenue, MakerRegistry>()

/** Creates the venue's maker registry (once per sandbox). */
export function createMakerRegistry(parameters: MakerRegistryParameters): MakerRegistry {
  const registry = new MakerRegistry(parameters)
  registries.set(parameters.venue, registry)
  return registry
}

/** The venue's maker registry; undefined when the sandbox was built without one. */
export function makerRegistryOf(venue: SandboxVenue): MakerRegistry | undefined {
  return registries.get(venue)
}
