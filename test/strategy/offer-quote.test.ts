import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { defineStrategy } from '../../src/strategy/define-strategy.js'
import { createMemoryStateStore } from '../../src/strategy/memory-state-store.js'
import { createSafeStrategy, type StrategyRun } from '../../src/strategy/safe-strategy.js'
import { ManualClock } from '../../src/time/clock.js'
import { captureLogger, exampleRequest, sampleQuote } from './strategy-fixtures.js'

/** A strategy that records the quotes it hears; a quote whose destAmount is 1 is handled asynchronously. */
function recorder(heard: bigint[], { failAt }: { failAt?: bigint } = {}) {
  const definition = defineStrategy({
    apiVersion: 1,
    name: 'recorder',
    configSchema: z.object({}),
    subscriptions: () => [exampleRequest],
    onQuote: (quote) => {
      if (quote.destAmount === failAt) throw new Error('bad quote')
      if (quote.destAmount !== 1n) {
        heard.push(quote.destAmount)
        return []
      }
      return new Promise<[]>((resolve) =>
        setTimeout(() => {
          heard.push(quote.destAmount)
          resolve([])
        }, 20),
      )
    },
  })
  return createSafeStrategy(definition, {
    config: {},
    clock: new ManualClock(0),
    journal: createMemoryStateStore(),
    logger: captureLogger().logger,
    maxConsecutiveFailures: 2,
  })
}

describe('offerQuote: the synchronous delivery path', () => {
  it('answers at once, with no promise, when nothing of the strategy runs and its handler answers synchronously', () => {
    const heard: bigint[] = []
    const strategy = recorder(heard)
    const run = strategy.offerQuote(sampleQuote(5n))
    expect(run).not.toBeInstanceOf(Promise)
    expect((run as StrategyRun).outcome).toBe('handled')
    expect(heard).toEqual([5n])
  })

  it('keeps call order behind a handler that answered with a promise', async () => {
    const heard: bigint[] = []
    const strategy = recorder(heard)
    const runs = [1n, 2n, 3n].map((destAmount) => strategy.offerQuote(sampleQuote(destAmount)))
    expect(runs.every((run) => run instanceof Promise)).toBe(true)
    expect(heard).toEqual([])
    await Promise.all(runs)
    expect(heard).toEqual([1n, 2n, 3n])
    // Nothing runs any more: the next quote is handled at once again.
    expect(strategy.offerQuote(sampleQuote(4n))).not.toBeInstanceOf(Promise)
    expect(heard).toEqual([1n, 2n, 3n, 4n])
  })

  it('contains a handler that throws, counts it, and pauses the strategy after the configured failures in a row', () => {
    const heard: bigint[] = []
    const strategy = recorder(heard, { failAt: 9n })
    const first = strategy.offerQuote(sampleQuote(9n)) as StrategyRun
    expect(first.outcome).toBe('failed')
    const second = strategy.offerQuote(sampleQuote(9n)) as StrategyRun
    expect(second).toMatchObject({ outcome: 'failed', paused: true })
    expect(strategy.offerQuote(sampleQuote(5n))).toEqual({ outcome: 'skipped', reason: 'paused' })
    expect(strategy.stats()).toMatchObject({ failures: 2, eventsSkipped: 1, quotesOffered: 3, paused: true })
    expect(heard).toEqual([])
  })

  it('counts a handler that asked for nothing but whose state cannot be written as failed, and keeps nothing of it', () => {
    const store = createMemoryStateStore()
    const { writeStrategyStates: _atOnce, ...separately } = store
    const refusing = {
      ...separately,
      setStrategyState: (strategy: string, key: string, value: unknown) => {
        if (key === 'refused') throw new Error('disk full')
        store.setStrategyState(strategy, key, value)
      },
    }
    const definition = defineStrategy({
      apiVersion: 1,
      name: 'writer',
      configSchema: z.object({}),
      subscriptions: () => [exampleRequest],
      onQuote: (quote, { state }) => {
        state.set(quote.destAmount === 1n ? 'refused' : 'kept', 1)
        return []
      },
    })
    const strategy = createSafeStrategy(definition, {
      config: {},
      clock: new ManualClock(0),
      journal: refusing,
      logger: captureLogger().logger,
    })
    expect(strategy.offerQuote(sampleQuote(1n))).toMatchObject({ outcome: 'failed', paused: false })
    expect(strategy.stats()).toMatchObject({ failures: 1, consecutiveFailures: 1, eventsHandled: 1 })
    expect(store.keys('writer')).toEqual([])
    expect(strategy.offerQuote(sampleQuote(2n))).toEqual({ outcome: 'handled', intents: [] })
    expect(strategy.stats()).toMatchObject({ failures: 1, consecutiveFailures: 0, eventsHandled: 2 })
    expect(store.keys('writer')).toEqual(['kept'])
  })

  it('skips a quote of another request without counting it', () => {
    const strategy = recorder([])
    expect(strategy.offerQuote(sampleQuote(5n, { ...exampleRequest, amount: 7n }))).toEqual({
      outcome: 'skipped',
      reason: 'not subscribed',
    })
    expect(strategy.stats().quotesOffered).toBe(0)
  })
})
