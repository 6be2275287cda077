import { randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { IssuedRoutes, priceRouteMaxAgeMs } from '../../src/sandbox/market/route-integrity.js'
import { ManualClock } from '../../src/time/clock.js'

const route = { blockNumber: 7, network: 1, srcAmount: '1000', partnerFee: 0.01, bestRoute: [{ percent: 100 }] }

function setup() {
  const clock = new ManualClock(1_000_000)
  const routes = new IssuedRoutes(randomBytes(32), () => clock.now())
  const { hmac, json } = routes.issue(route)
  return { clock, routes, issued: JSON.parse(json) as Record<string, unknown>, hmac }
}

describe('IssuedRoutes', () => {
  it('appends a 40-hex hmac as the last key of the JSON it returns', () => {
    const { issued, hmac } = setup()
    expect(hmac).toMatch(/^[0-9a-f]{40}$/)
    expect(Object.keys(issued).at(-1)).toBe('hmac')
    expect(issued).toEqual({ ...route, hmac })
  })

  it('accepts the route as issued until it is 30 s old', () => {
    const { clock, routes, issued } = setup()
    clock.advance(priceRouteMaxAgeMs)
    expect(() => routes.verify(issued)).not.toThrow()
  })

  it('calls a route older than 30 s stale', () => {
    const { clock, routes, issued } = setup()
    clock.advance(priceRouteMaxAgeMs + 1)
    expect(() => routes.verify(issued)).toThrow(/^Stale priceRoute/)
  })

  it('still calls a route stale after newer issues pruned it', () => {
    const { clock, routes, issued } = setup()
    clock.advance(priceRouteMaxAgeMs + 1)
    routes.issue({ ...route, blockNumber: 8 })
    expect(() => routes.verify(issued)).toThrow(/^Stale priceRoute/)
  })

  it('rejects a value of another type, a changed value and a re-ordered key as invalid', () => {
    const { routes, issued } = setup()
    expect(() => routes.verify({ ...issued, blockNumber: '7' })).toThrow(/^Invalid priceRoute/)
    expect(() => routes.verify({ ...issued, srcAmount: '1001' })).toThrow(/^Invalid priceRoute/)
    const { network, ...rest } = issued
    expect(() => routes.verify({ network, ...rest })).toThrow(/^Invalid priceRoute/)
  })

  it('rejects a route tagged with another run’s secret', () => {
    const { issued } = setup()
    const other = new IssuedRoutes(randomBytes(32), () => 1_000_000)
    expect(() => other.verify(issued)).toThrow(/^Invalid priceRoute/)
  })
})
