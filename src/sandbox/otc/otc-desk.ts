import type { SandboxDesk } from '../server/desk.js'
import type { SandboxVenue } from '../venue/sandbox-venue.js'
import { OtcChainTracker } from './otc-chain-tracker.js'
import { OtcCounterparty } from './otc-counterparty.js'
import { OtcOrderStore } from './otc-order-store.js'
import { registerOtcApi } from './register-otc-api.js'

/**
 * Real ms between two tracking steps of a chain: expiry and the counterparty's fills fall due on the clock; a step
 * reads the chain only when a block came (the chain venue hears of each) or after a fill of its own.
 */
const pollIntervalMs = 200

/** OTC order book (/ft/...) and the simulated P2P counterparty. */
export function createOtcDesk(venue: SandboxVenue): SandboxDesk {
  const logger = venue.logger.child({ desk: 'otc' })
  const store = new OtcOrderStore()
  const trackers = new Map(
    [...venue.chains.values()].map((chain) => [chain.chainId, new OtcChainTracker({ chain, store, clock: venue.clock, logger })]),
  )
  const counterparty = new OtcCounterparty({ clock: venue.clock, logger })
  const timers: ReturnType<typeof setInterval>[] = []
  const running = new Map<number, Promise<void>>()

  const step = async (tracker: OtcChainTracker) => {
    try {
      await tracker.poll()
      const filled = await counterparty.fillDue(tracker.chain, store.live(tracker.chain.chainId))
      if (filled > 0) await tracker.poll({ fresh: true })
    } catch (error) {
      logger.warn({ err: error, chainId: tracker.chain.chainId }, 'OTC tracking step failed')
    }
  }

  return {
    name: 'otc',
    register: (app) => registerOtcApi(app, { venue, store, trackers }),
    start: () => {
      for (const tracker of trackers.values()) {
        const timer = setInterval(() => {
          const chainId = tracker.chain.chainId
          if (running.has(chainId)) return
          running.set(
            chainId,
            step(tracker).finally(() => running.delete(chainId)),
          )
        }, pollIntervalMs)
        timer.unref()
        timers.push(timer)
      }
    },
    stop: async () => {
      for (const timer of timers.splice(0)) clearInterval(timer)
      await Promise.allSettled([...running.values(), counterparty.settled()])
    },
  }
}
