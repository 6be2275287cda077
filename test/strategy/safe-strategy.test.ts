import { describe, expect, expectTypeOf, it } from 'vitest'
import { z } from 'zod'
import { intentId } from '../../src/domain/intents/intent-id.js'
import { parseIntentContent } from '../../src/domain/intents/parse-intent.js'
import { openJournal } from '../../src/journal/journal.js'
import { toOrderView } from '../../src/runtime/order-views.js'
import { defineStrategy, type IntentRequest } from '../../src/strategy/define-strategy.js'
import { createSafeStrategy } from '../../src/strategy/safe-strategy.js'
import { StrategyConfigError, StrategyError } from '../../src/strategy/strategy-errors.js'
import example from '../../strategies/example/index.js'
import { recordSampleOrder } from '../journal/journal-fixtures.js'
import { journalStartMs, useJournal } from '../journal/use-journal.js'
import { captureLogger, exampleConfig, exampleRequest, sampleQuote, usdc, weth } from './strategy-fixtures.js'

const journalContext = useJournal()

function startExample(config: unknown = exampleConfig) {
  const { journal, clock } = journalContext
  return createSafeStrategy(example, { config, clock, journal, logger: captureLogger().logger })
}

const swapContent = {
  kind: 'swap',
  chainId: 1,
  srcToken: usdc,
  destToken: weth,
  amount: '5',
  side: 'SELL',
  maxSlippageBps: 50,
  maxPriceImpactPercent: 1,
} as const

/** A strategy whose onQuote runs `onQuote`; no config. */
function quoteStrategy(name: string, onQuote: (quote: { destAmount: bigint }) => IntentRequest | undefined) {
  return defineStrategy({ apiVersion: 1, name, configSchema: z.object({}), subscriptions: () => [exampleRequest], onQuote })
}

describe('createSafeStrategy', () => {
  it('gives handlers the config typed from configSchema, parsed and frozen', async () => {
    const seen: unknown[] = []
    const typed = defineStrategy({
      apiVersion: 1,
      name: 'typed',
      configSchema: z.object({ amount: z.string().transform(BigInt), label: z.string().default('x') }),
      subscriptions: () => [],
      onStart: ({ config }) => {
        expectTypeOf(config.amount).toEqualTypeOf<bigint>()
        expectTypeOf(config.label).toEqualTypeOf<string>()
        seen.push(config.amount, config.label, Object.isFrozen(config))
      },
    })
    const { journal, clock } = journalContext
    const strategy = createSafeStrategy(typed, { config: { amount: '12' }, clock, journal, logger: captureLogger().logger })
    expect(await strategy.start()).toEqual({ outcome: 'handled', intents: [] })
    expect(seen).toEqual([12n, 'x', true])
  })

  it('refuses a bad config naming the strategy and every bad field', () => {
    const attempt = () => startExample({ ...exampleConfig, amount: '1.5', srcToken: 'usdc' })
    expect(attempt).toThrow(StrategyConfigError)
    expect(attempt).toThrow(
      /strategy "example" has an invalid config: srcToken: expected an address .*received "usdc"; amount: expected raw units/,
    )
  })

  it('stamps intents with the strategy name, a deterministic id and the clock time', async () => {
    const run = await startExample().handleQuote(sampleQuote(500_000_000_000_000_000n))
    expect(run.outcome).toBe('handled')
    const intents = run.outcome === 'handled' ? run.intents : []
    expect(intents).toHaveLength(1)
    const expectedContent = parseIntentContent({
      strategy: 'example',
      kind: 'swap',
      chainId: 1,
      srcToken: usdc,
      destToken: weth,
      amount: '1000000000',
      side: 'SELL',
      maxSlippageBps: 50,
      maxPriceImpactPercent: 2,
    })
    expect(intents[0]).toEqual({
      ...expectedContent,
      id: intentId({ content: expectedContent, key: 'take-profit' }),
      createdAt: journalStartMs,
    })
  })

  it('counts an invalid intent as a failure naming the strategy and the field, and emits nothing', async () => {
    const { journal, clock } = journalContext
    const strategy = createSafeStrategy(
      quoteStrategy('bad-intent', () => ({ key: 'k', intent: { ...swapContent, maxSlippageBps: 20_000 } })),
      { config: {}, clock, journal, logger: captureLogger().logger },
    )
    const run = await strategy.handleQuote(sampleQuote(1n))
    expect(run.outcome).toBe('failed')
    if (run.outcome !== 'failed') return
    expect(run.error).toBeInstanceOf(StrategyError)
    expect(run.error.shortMessage).toMatch(
      /^strategy "bad-intent" failed in onQuote: intent request: key "k": maxSlippageBps: expected an integer number of basis points/,
    )
    expect(strategy.stats()).toMatchObject({ failures: 1, intentsProduced: 0, eventsHandled: 1 })
  })

  it('counts a strategy that mutates its quote, and leaves the caller’s quote unchanged', async () => {
    const { journal, clock } = journalContext
    const mutating = quoteStrategy('mutating', (quote) => {
      ;(quote as { destAmount: bigint }).destAmount = 0n
      return undefined
    })
    const strategy = createSafeStrategy(mutating, { config: {}, clock, journal, logger: captureLogger().logger })
    const quote = sampleQuote(7n)
    const run = await strategy.handleQuote(quote)
    expect(run.outcome === 'failed' && run.error.shortMessage).toMatch(
      /failed in onQuote: Cannot assign to read only property 'destAmount'/,
    )
    expect(quote.destAmount).toBe(7n)
    expect(Object.isFrozen(quote)).toBe(false)
    expect(strategy.stats().failures).toBe(1)
  })

  it('contains thrown and rejected errors and pauses after N consecutive failures while another strategy keeps running', async () => {
    const { journal, clock } = journalContext
    const { logger, lines } = captureLogger()
    let calls = 0
    const failing = defineStrategy({
      apiVersion: 1,
      name: 'failing',
      configSchema: z.object({}),
      subscriptions: () => [exampleRequest],
      onQuote: async () => {
        calls += 1
        if (calls % 2 === 0) throw new Error(`boom ${calls}`)
        return Promise.reject(new Error(`rejected ${calls}`))
      },
    })
    const broken = createSafeStrategy(failing, { config: {}, clock, journal, logger, maxConsecutiveFailures: 3 })
    const healthy = startExample()
    const runs = []
    for (let index = 0; index < 4; index += 1) {
      runs.push(await broken.handleQuote(sampleQuote(1n)))
      expect((await healthy.handleQuote(sampleQuote(1n))).outcome).toBe('handled')
    }
    expect(runs.map((run) => run.outcome)).toEqual(['failed', 'failed', 'failed', 'skipped'])
    expect(runs.map((run) => (run.outcome === 'failed' ? run.error.shortMessage.split(': ')[1] : run.outcome))).toEqual([
      'rejected 1',
      'boom 2',
      'rejected 3',
      'skipped',
    ])
    expect(calls).toBe(3)
    expect(broken.stats()).toMatchObject({
      paused: true,
      pausedBy: 'failures',
      failures: 3,
      consecutiveFailures: 3,
      eventsHandled: 3,
      eventsSkipped: 1,
    })
    expect(healthy.stats()).toMatchObject({ paused: false, failures: 0, eventsHandled: 4 })
    expect(lines().filter((line) => line.msg === 'strategy paused after consecutive failures')).toEqual([
      expect.objectContaining({ strategy: 'failing', consecutiveFailures: 3 }),
    ])

    broken.resume()
    expect((await broken.handleQuote(sampleQuote(1n))).outcome).toBe('failed')
    expect(broken.stats()).toMatchObject({ paused: false, pausedBy: null, consecutiveFailures: 1, failures: 4 })
    broken.pause()
    broken.pause()
    expect(broken.stats()).toMatchObject({ paused: true, pausedBy: 'operator' })
  })

  it('resets the count of consecutive failures on a success', async () => {
    const { journal, clock } = journalContext
    let calls = 0
    const flaky = quoteStrategy('flaky', () => {
      calls += 1
      if (calls % 2 === 1) throw new Error('odd call')
      return undefined
    })
    const strategy = createSafeStrategy(flaky, { config: {}, clock, journal, logger: captureLogger().logger, maxConsecutiveFailures: 2 })
    for (let index = 0; index < 6; index += 1) await strategy.handleQuote(sampleQuote(1n))
    expect(strategy.stats()).toMatchObject({ paused: false, failures: 3, consecutiveFailures: 0, eventsHandled: 6 })
  })

  it('keeps state in the journal so a new instance after a restart does not sell twice', async () => {
    const { journal, clock, file } = journalContext
    const first = startExample()
    expect((await first.handleQuote(sampleQuote(1n))).outcome).toBe('handled')
    expect(journal.getStrategyState('example', 'soldAt')).toBeUndefined()
    clock.advance(1_000)
    const sold = await first.handleQuote(sampleQuote(10n ** 18n))
    expect(sold.outcome === 'handled' && sold.intents.length).toBe(1)
    journal.close()

    const reopened = openJournal({ file, clock })
    journalContext.journal = reopened
    expect(reopened.getStrategyState('example', 'soldAt')).toBe(journalStartMs + 1_000)
    const second = createSafeStrategy(example, { config: exampleConfig, clock, journal: reopened, logger: captureLogger().logger })
    expect(await second.handleQuote(sampleQuote(10n ** 18n))).toEqual({ outcome: 'handled', intents: [] })
  })

  it('drops the state writes of a handler that fails', async () => {
    const { journal, clock } = journalContext
    const writesThenFails = defineStrategy({
      apiVersion: 1,
      name: 'writes-then-fails',
      configSchema: z.object({}),
      subscriptions: () => [exampleRequest],
      onQuote: (quote, { state }) => {
        state.set('seen', { destAmount: quote.destAmount })
        expect(state.get('seen', z.object({ destAmount: z.string() }))).toEqual({ destAmount: '3' })
        return { key: 'k', intent: { ...swapContent, amount: '-1' } }
      },
    })
    const strategy = createSafeStrategy(writesThenFails, { config: {}, clock, journal, logger: captureLogger().logger })
    expect((await strategy.handleQuote(sampleQuote(3n))).outcome).toBe('failed')
    expect(journal.getStrategyState('writes-then-fails', 'seen')).toBeUndefined()
  })

  it('skips quotes the strategy did not subscribe to', async () => {
    const strategy = startExample()
    const other = sampleQuote(10n ** 18n, { ...exampleRequest, amount: 5n })
    expect(await strategy.handleQuote(other)).toEqual({ outcome: 'skipped', reason: 'not subscribed' })
    expect(strategy.stats().eventsHandled).toBe(0)
  })

  it('hands order updates from the journal as frozen copies and turns them into cancel intents', async () => {
    const { journal, clock } = journalContext
    const orderId = recordSampleOrder(journal, 'order-1')
    const order = journal.getOrder({ id: orderId })
    if (order === undefined) throw new Error('order not recorded')
    const canceller = defineStrategy({
      apiVersion: 1,
      name: 'canceller',
      configSchema: z.object({}),
      subscriptions: () => [],
      onOrderUpdate: ({ order: updated }) => {
        expect(Object.isFrozen(updated)).toBe(true)
        return [{ key: 'cancel', intent: { kind: 'cancel', orderIds: [updated.id] } }]
      },
    })
    const strategy = createSafeStrategy(canceller, { config: {}, clock, journal, logger: captureLogger().logger })
    const run = await strategy.handleOrderUpdate({ order: toOrderView(order), reason: null })
    expect(run.outcome === 'handled' && run.intents).toEqual([
      expect.objectContaining({ strategy: 'canceller', kind: 'cancel', orderIds: [orderId] }),
    ])
    expect(Object.isFrozen(order)).toBe(false)
  })

  it('fires timers with the clock time and the interval', async () => {
    const { journal, clock } = journalContext
    const events: unknown[] = []
    const ticking = defineStrategy({
      apiVersion: 1,
      name: 'ticking',
      configSchema: z.object({ everyMs: z.number() }),
      subscriptions: () => [],
      timers: (config) => [config.everyMs],
      onTimer: (event, { now }) => {
        events.push({ ...event, contextNow: now() })
      },
    })
    const strategy = createSafeStrategy(ticking, { config: { everyMs: 60_000 }, clock, journal, logger: captureLogger().logger })
    expect(strategy.timers).toEqual([60_000])
    clock.advance(60_000)
    await strategy.handleTimer(60_000)
    expect(events).toEqual([{ now: journalStartMs + 60_000, intervalMs: 60_000, contextNow: journalStartMs + 60_000 }])
  })
})
