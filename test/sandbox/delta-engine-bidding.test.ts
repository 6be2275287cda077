import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createRandom } from '../../src/domain/seeded-random.js'
import { agentProfiles } from '../../src/sandbox/delta/agents.js'
import { bidsOf, drawBiddingRound, winningBid } from '../../src/sandbox/delta/engine/agent-bids.js'
import { findLargestFill } from '../../src/sandbox/delta/engine/largest-fill.js'
import { meetsLimit, type OrderTerms } from '../../src/sandbox/delta/engine/order-terms.js'

const terms = (side: 'SELL' | 'BUY', feeBps: bigint, crosschain = false): OrderTerms => ({
  flow: 'market',
  side,
  owner: '0x0000000000000000000000000000000000000001',
  beneficiary: '0x0000000000000000000000000000000000000001',
  srcToken: '0x0000000000000000000000000000000000000002',
  destToken: '0x0000000000000000000000000000000000000003',
  feeBps,
  bridge: crosschain
    ? {
        protocolSelector: '0x0f5a1b01',
        destinationChainId: 8453n,
        outputToken: '0x0000000000000000000000000000000000000004',
        scalingFactor: 0,
        protocolData: '0x',
      }
    : undefined,
  permit: '0x',
  total: 1n,
  partial: false,
})

describe('findLargestFill', () => {
  it('finds the largest amount under a threshold, to within the tolerance', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 1n, max: 1n << 80n }),
        fc.bigInt({ min: 1n, max: 1n << 80n }),
        fc.bigInt({ min: 0n, max: 1n << 81n }),
        fc.bigInt({ min: 1n, max: 1n << 20n }),
        (a, b, threshold, tolerance) => {
          const [minimum, maximum] = a < b ? [a, b] : [b, a]
          const found = findLargestFill(minimum, maximum, tolerance, (amount) => amount <= threshold)
          if (threshold < minimum) expect(found).toBeUndefined()
          else if (threshold >= maximum) expect(found).toBe(maximum)
          else {
            expect(found).toBeDefined()
            expect(found as bigint).toBeLessThanOrEqual(threshold)
            expect(threshold - (found as bigint)).toBeLessThanOrEqual(tolerance)
          }
        },
      ),
    )
  })
})

describe('agent bids', () => {
  it('bid below the pools on a sell and above them on a buy, within each agent’s edge and jitter', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 2 ** 31 }), fc.bigInt({ min: 10n ** 6n, max: 10n ** 30n }), (seed, pool) => {
        const round = drawBiddingRound(agentProfiles, createRandom(seed))
        for (const [index, bid] of bidsOf(round, 'SELL', pool).entries()) {
          const agent = agentProfiles[index]
          const worstBps = BigInt((agent?.edgeBps ?? 0) + (agent?.jitterBps ?? 0) + 1)
          expect(bid.amount).toBeLessThanOrEqual(pool)
          expect(bid.amount).toBeGreaterThanOrEqual((pool * (10_000n - worstBps)) / 10_000n)
        }
        for (const bid of bidsOf(round, 'BUY', pool)) expect(bid.amount).toBeGreaterThanOrEqual(pool)
      }),
    )
  })

  it('draw the same round from the same seed', () => {
    expect(drawBiddingRound(agentProfiles, createRandom(7))).toEqual(drawBiddingRound(agentProfiles, createRandom(7)))
  })

  it('pick the best bid only when it meets the limit', () => {
    const round = drawBiddingRound(agentProfiles, createRandom(3))
    const bids = bidsOf(round, 'SELL', 1_000_000n)
    const best = bids.reduce((a, b) => (b.amount > a.amount ? b : a))
    expect(winningBid(bids, { side: 'SELL', minDest: best.amount }, terms('SELL', 0n))).toEqual(best)
    expect(winningBid(bids, { side: 'SELL', minDest: best.amount + 1n }, terms('SELL', 0n))).toBeUndefined()
  })
})

describe('meetsLimit', () => {
  it('applies the partner fee as the contract does: cut from a sell, added to a buy, none crosschain', () => {
    // Sell: the beneficiary receives 10000 - floor(10000 * 50 / 10000) = 9950.
    expect(meetsLimit({ side: 'SELL', minDest: 9_950n }, 10_000n, terms('SELL', 50n))).toBe(true)
    expect(meetsLimit({ side: 'SELL', minDest: 9_951n }, 10_000n, terms('SELL', 50n))).toBe(false)
    expect(meetsLimit({ side: 'SELL', minDest: 10_000n }, 10_000n, terms('SELL', 50n, true))).toBe(true)
    // Buy: the owner pays 10000 + 50.
    expect(meetsLimit({ side: 'BUY', maxSrc: 10_050n }, 10_000n, terms('BUY', 50n))).toBe(true)
    expect(meetsLimit({ side: 'BUY', maxSrc: 10_049n }, 10_000n, terms('BUY', 50n))).toBe(false)
  })
})
