import { existsSync } from 'node:fs'

/** Where a signal comes from: the process, or an emitter standing in for it. */
export type SignalSource = {
  on: (signal: NodeJS.Signals, listener: () => void) => unknown
  off: (signal: NodeJS.Signals, listener: () => void) => unknown
}

export type CreateKillSwitchParameters = {
  /** Tripped while this file exists (checked on each isTripped(), no polling). */
  file?: string | undefined
  /** Trips the switch when received, e.g. SIGUSR2; it stays tripped until reset(). */
  signal?: NodeJS.Signals | undefined
  /**
   * Whether the executor should cancel every open order once tripped (default false: only stop new intents). The bot
   * does it at its next reconciliation pass, Delta orders in signed batches of at most 100 per chain; orders whose
   * batch the venue refused are tried again at the following pass.
   */
  cancelOpenOrders?: boolean | undefined
  /** Defaults to the process. */
  signalSource?: SignalSource | undefined
}

/** Who tripped it: the signal or trip(), the operator (engage()), or the file. */
export type KillSwitchSource = 'signal' | 'operator' | 'file'

export type KillSwitch = {
  isTripped: () => boolean
  /** Why it is tripped; undefined while it is not. */
  readonly reason: string | undefined
  /** What tripped it (the first of signal, operator, file); undefined while it is not. */
  readonly source: KillSwitchSource | undefined
  /** The config's choice, or the operator's while engaged with it. */
  readonly cancelOpenOrders: boolean
  /** The operator's switch (the console): stays engaged until release(), whatever the file and the signal do. */
  engage: (engagement: { reason: string; cancelOpenOrders: boolean }) => void
  /** Releases the operator's switch only; a signal's trip or the file still hold. */
  release: () => void
  /** Trips it by hand (stays tripped until reset()). */
  trip: (reason: string) => void
  /** Clears a trip by signal or by hand; a kill-switch file still trips it while it exists. */
  reset: () => void
  /** Stops listening for the signal. */
  dispose: () => void
}

/**
 * The operator's emergency stop: create the file (`touch <file>`) or send the signal (`kill -USR2 <pid>`) and the
 * executor accepts no new intent (checkRiskLimits refuses them); with cancelOpenOrders it also cancels open orders.
 */
export function createKillSwitch({
  file,
  signal,
  cancelOpenOrders = false,
  signalSource = process,
}: CreateKillSwitchParameters = {}): KillSwitch {
  let latched: string | undefined
  let engaged: { reason: string; cancelOpenOrders: boolean } | undefined
  const onSignal = () => {
    latched ??= `received ${signal}`
  }
  if (signal !== undefined) signalSource.on(signal, onSignal)
  const fileExists = () => file !== undefined && existsSync(file)
  const reasonNow = (): string | undefined => latched ?? engaged?.reason ?? (fileExists() ? `kill-switch file ${file} exists` : undefined)
  return {
    isTripped: () => reasonNow() !== undefined,
    get reason() {
      return reasonNow()
    },
    get source() {
      if (latched !== undefined) return 'signal'
      if (engaged !== undefined) return 'operator'
      return fileExists() ? 'file' : undefined
    },
    get cancelOpenOrders() {
      return cancelOpenOrders || (engaged?.cancelOpenOrders ?? false)
    },
    engage: (engagement) => {
      engaged = { ...engagement }
    },
    release: () => {
      engaged = undefined
    },
    trip: (reason) => {
      latched ??= reason
    },
    reset: () => {
      latched = undefined
    },
    dispose: () => {
      if (signal !== undefined) signalSource.off(signal, onSignal)
    },
  }
}
