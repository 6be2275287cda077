import type { Clock } from '../../time/clock.js'
import { everyOnClock } from '../../time/clock-timer.js'
import type { PricedToken } from '../latest-prices.js'
import type { createBalanceCache } from './balance-cache.js'
import type { Valuation } from './valuation.js'

/** The wallet's value at one time (clock ms): raw units of the valuation token; `unpriced` tokens are left out of it. */
export type EquityPoint = { at: number; raw: bigint; pricedAt: number | null; unpriced: PricedToken[] }

/** Points kept at most; when full, every other one is dropped (the series keeps its span, at half the density). */
export const equityCapacity = 2_048

/** A bounded series of points in time order. */
export function createEquitySeries(capacity = equityCapacity) {
  let points: EquityPoint[] = []
  return {
    add: (point: EquityPoint): void => {
      const last = points.at(-1)
      if (last && point.at < last.at) return
      points.push(point)
      // Halved from the newest backwards: the latest point always stays.
      if (points.length > capacity) points = points.filter((_, index) => (points.length - 1 - index) % 2 === 0)
    },
    points: (): readonly EquityPoint[] => points,
  }
}

export type EquitySamplerParameters = {
  balances: ReturnType<typeof createBalanceCache>
  valuation: Valuation
  clock: Clock
  /** Clock ms between samples. */
  intervalMs: number
  capacity?: number | undefined
}

/**
 * Samples the wallet's value every `intervalMs` of the bot's clock: its balances of the bot's tokens (the console's
 * balance cache: the chains are read at most once per few seconds) valued at the latest prices the bot has seen. A
 * sample is skipped while the balances cannot be read or there is no valuation token.
 */
export function startEquitySampler({ balances, valuation, clock, intervalMs, capacity }: EquitySamplerParameters) {
  const series = createEquitySeries(capacity)
  let sampling = false

  async function sample(): Promise<void> {
    const answer = await balances.balances()
    if (answer.readAt === null || answer.error !== null) return
    const chosen = await valuation.token()
    if (!('token' in chosen)) return
    const amounts = answer.balances.map(({ chainId, token, amount }) => ({ chainId, token, amount: BigInt(amount) }))
    const { raw, pricedAt, unpriced } = valuation.value(amounts, chosen.token)
    series.add({ at: clock.now(), raw, pricedAt, unpriced })
  }

  const timer = everyOnClock(clock, intervalMs, () => {
    if (sampling) return
    sampling = true
    void sample()
      .catch(() => undefined)
      .finally(() => {
        sampling = false
      })
  })
  return { intervalMs, points: series.points, stop: () => timer.cancel() }
}

export type EquitySampler = ReturnType<typeof startEquitySampler>
