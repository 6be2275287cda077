import type { ScaledClock } from '../../time/clock.js'
import type { ChainVenue } from './chain-venue.js'

/**
 * Keeps each chain's block time on the sandbox clock when it runs faster than real time (`--speed`), so deadlines,
 * auctions and TWAP intervals agree between the API and the chains. Returns a stop function.
 */
export function syncChainTime(chains: Iterable<ChainVenue>, clock: ScaledClock, intervalMs = 250): () => void {
  if (clock.speed === 1) return () => {}
  const list = [...chains]
  const tick = async () => {
    const target = Math.floor(clock.now() / 1000)
    await Promise.all(
      list.map(async (chain) => {
        const latest = await chain.clients.publicClient.getBlock({ blockTag: 'latest' })
        if (BigInt(target) > latest.timestamp) {
          await chain.clients.publicClient.request({ method: 'evm_setTime', params: [target] } as never)
        }
      }),
    ).catch(() => {
      // a node that is stopping; the next tick tries again
    })
  }
  const timer = setInterval(tick, intervalMs)
  timer.unref()
  void tick()
  return () => clearInterval(timer)
}
